// Reads a whole file, gunzipping it when it is gzip data (zlib's gzread reads
// plain files unchanged), so every reader takes foo.csv and foo.csv.gz alike.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_INTERNAL_READ_MAYBE_GZIPPED_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_INTERNAL_READ_MAYBE_GZIPPED_H_

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace trainpkg::data::internal {

// NotFound when the file is missing; DataLoss when the gzip stream is
// corrupt or truncated. Messages name the path.
//
// Stops reading once it holds more than `max_bytes` (the result is then
// longer than max_bytes, by at most 64 KiB), so a small gzip file that
// inflates to gigabytes costs no more memory than its reader expects.
absl::StatusOr<std::string> ReadMaybeGzipped(const std::filesystem::path& path,
                                             uint64_t max_bytes = UINT64_MAX);

}  // namespace trainpkg::data::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_INTERNAL_READ_MAYBE_GZIPPED_H_
