// An advisory lock on a file (flock(2)), held while the object lives. The
// kernel drops it when the process dies, so a killed holder never leaves
// the file locked.
//
//   TP_ASSIGN_OR_RETURN(base::FileLock lock,
//                       base::FileLock::Acquire(dir / ".lock", base::FileLock::Mode::kExclusive));
#ifndef TRAINPKG_BASE_FILE_LOCK_H_
#define TRAINPKG_BASE_FILE_LOCK_H_

#include <filesystem>
#include <utility>

#include "absl/status/statusor.h"
#include "base/unique_fd.h"

namespace trainpkg::base {

class FileLock {
 public:
  enum class Mode { kShared, kExclusive };

  // Blocks until `file` (created 0644 when absent) is locked in `mode`.
  // Errors: errno-derived ones naming the file.
  static absl::StatusOr<FileLock> Acquire(const std::filesystem::path& file, Mode mode);

  FileLock(FileLock&&) noexcept = default;
  FileLock& operator=(FileLock&&) noexcept = default;

 private:
  explicit FileLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // closing it releases the lock
};

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_FILE_LOCK_H_
