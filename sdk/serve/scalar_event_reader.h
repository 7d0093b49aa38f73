// Reading the scalars of TensorBoard event files back (what
// trainer_runtime/train/event_file_writer.h and tf.summary write): TFRecords
// (uint64 length, masked CRC-32C of the length, the bytes, masked CRC-32C of
// the bytes) of Event protos, decoded here from the protobuf wire format
// directly, since the sdk does not link the runtime's generated code. Only
// Summary values with a simple_value are scalars; other events and fields
// are skipped.
#ifndef TRAINPKG_SDK_SERVE_SCALAR_EVENT_READER_H_
#define TRAINPKG_SDK_SERVE_SCALAR_EVENT_READER_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::serve {

struct ScalarPoint {
  std::string tag;
  int64_t step = 0;
  double wall_time = 0;  // seconds since the epoch
  double value = 0;
  bool operator==(const ScalarPoint&) const = default;
};

// The scalars of an event file's bytes, in file order. A last record cut
// short (the trainer is appending it) ends the list without an error.
// DataLoss "record at byte N: ..." for a CRC that does not match or an
// Event that is not valid protobuf.
absl::StatusOr<std::vector<ScalarPoint>> ParseScalarEvents(std::string_view data);

// The largest event file read: a scalar event is ~50 bytes per tag.
inline constexpr size_t kMaxEventFileBytes = 64 << 20;

// Reads and parses `path`. Errors are prefixed with the path;
// InvalidArgument for a file that is not a regular file (symbolic links are
// not followed: the trainer writing the directory may be hostile) or is
// larger than kMaxEventFileBytes.
absl::StatusOr<std::vector<ScalarPoint>> ReadScalarEventFile(const std::filesystem::path& path);

// The event files (regular files whose names contain "tfevents", as
// TensorBoard picks them) directly in `dir`, sorted by name (their names
// start with the creation time); none when `dir` is absent.
std::vector<std::filesystem::path> ListEventFiles(const std::filesystem::path& dir);

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_SCALAR_EVENT_READER_H_
