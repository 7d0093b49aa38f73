// Small file helpers with Status errors that name the path and the errno text.
#ifndef TRAINPKG_BASE_FILE_UTIL_H_
#define TRAINPKG_BASE_FILE_UTIL_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::base {

// Reads the whole file. NotFound when it does not exist.
absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path);

// Whether WriteFileAtomic waits for the new contents to reach the disk.
enum class FileSync {
  kSync,    // fsync before the rename: the new contents survive a crash
  kNoSync,  // for caches: after a crash the file may hold the old contents,
            // or be empty, so readers must accept that; no disk wait
};

// Writes `contents` to a temporary file beside `path`, fsyncs it (unless
// kNoSync) and renames it over `path`, so readers see either the old or the
// new contents, never a torn file. Creates missing parent directories.
absl::Status WriteFileAtomic(const std::filesystem::path& path, std::string_view contents,
                             FileSync sync = FileSync::kSync);

// Appends `contents` to `path` (created if missing) with O_APPEND.
absl::Status AppendToFile(const std::filesystem::path& path, std::string_view contents);

// Status for a failed system call: "<what>: <strerror(err)>", with a code
// chosen from errno (ENOENT -> NotFound, EACCES -> PermissionDenied, ...).
absl::Status ErrnoToStatus(int err, std::string_view what);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_FILE_UTIL_H_
