// Reads IDX files, the format of MNIST and Fashion-MNIST
// (train-images-idx3-ubyte, train-labels-idx1-ubyte, optionally .gz):
//
//   bytes 0-1  zero
//   byte  2    element type: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32,
//              0x0D float32, 0x0E float64
//   byte  3    number of dimensions d (1..8)
//   then d big-endian uint32 sizes, then the values, big-endian, row-major.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_IDX_READER_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_IDX_READER_H_

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::data {

enum class IdxType : uint8_t {
  kUint8 = 0x08,
  kInt8 = 0x09,
  kInt16 = 0x0B,
  kInt32 = 0x0C,
  kFloat32 = 0x0D,
  kFloat64 = 0x0E,
};

struct IdxArray {
  IdxType type = IdxType::kUint8;
  nn::Shape dims;
  std::vector<float> values;  // converted to float32 (int32/float64 may round)
};

// DataLoss (naming the file) for a bad magic, unknown type, zero or more
// than 8 dimensions, or a size that disagrees with the dimensions
// (truncated or trailing data); NotFound when missing.
absl::StatusOr<IdxArray> ReadIdx(const std::filesystem::path& path);
// The same on bytes in memory; `name` stands for the file in messages.
absl::StatusOr<IdxArray> ParseIdx(std::string_view bytes, std::string_view name);

// An images file [N, ...] and a labels file [N] (integer type, values >= 0)
// as a Dataset of element shape [...] (e.g. [28, 28]), every pixel
// multiplied by `scale` (1/255 for MNIST). InvalidArgument when the counts
// differ or the labels are not a 1-D integer array.
absl::StatusOr<Dataset> LoadIdxDataset(const std::filesystem::path& images,
                                       const std::filesystem::path& labels, float scale);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_IDX_READER_H_
