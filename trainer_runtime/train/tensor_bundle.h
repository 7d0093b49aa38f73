// The file format of saved models and checkpoints: named float32 tensors
// with JSON metadata, versioned and checksummed.
//
// Layout (version 1; all integers little-endian):
//   offset 0      8 bytes   magic "TPTENSOR"
//   offset 8      uint32    format version (1)
//   offset 12     uint32    H, the length of the header
//   offset 16     H bytes   header, UTF-8 JSON:
//                             {"format_version": 1,
//                              "kind": "model" | "checkpoint",
//                              "layers": [{"name": "dense", "kind": "dense",
//                                          "parameters": ["dense/kernel", "dense/bias"]}, ...],
//                              "tensors": [{"name": "dense/kernel", "shape": [64, 256]}, ...],
//                              "counters": {"epoch": 4, ...}}
//   offset 16+H   data      every tensor's values as float32 little-endian,
//                           row-major, in the order of "tensors", no padding
//   last 4 bytes  uint32    masked CRC-32C (base/crc32c.h) of every byte before it
//
// A reader checks the magic, then the version (a file of another version is
// refused before anything else is trusted), then the CRC, then that the
// header describes exactly the data that follows. numpy reads the data with
// np.frombuffer(data, "<f4") at the offsets the shapes give.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_TENSOR_BUNDLE_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_TENSOR_BUNDLE_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::train {

inline constexpr uint32_t kTensorBundleVersion = 1;

struct NamedTensor {
  std::string name;
  nn::Shape shape;
  std::vector<float> values;  // NumElements(shape) of them
};

struct LayerRecord {
  std::string name;
  std::string kind;
  std::vector<std::string> parameters;
};

struct TensorBundle {
  std::string kind;  // "model" or "checkpoint"
  std::vector<LayerRecord> layers;
  std::vector<NamedTensor> tensors;
  std::map<std::string, int64_t> counters;
};

// The file's bytes. REQUIRES: every tensor's values match its shape.
std::string EncodeTensorBundle(const TensorBundle& bundle);

// Parses bytes written by EncodeTensorBundle; `where` (a path) starts every
// error message. DataLoss for a wrong magic, a CRC mismatch ("stored
// 0x..., computed 0x...: the file is corrupted or truncated"), or a header
// that does not describe the data; FailedPrecondition for another format
// version ("format version 2; this build reads version 1").
absl::StatusOr<TensorBundle> DecodeTensorBundle(std::string_view bytes, std::string_view where);

// Writes atomically (temporary file, fsync, rename; base::WriteFileAtomic):
// readers see the old file or the new one, never a part.
absl::Status WriteTensorBundle(const std::filesystem::path& path, const TensorBundle& bundle);
// ReadFile's errors (NotFound, ...) or DecodeTensorBundle's.
absl::StatusOr<TensorBundle> ReadTensorBundle(const std::filesystem::path& path);

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_TENSOR_BUNDLE_H_
