#include "base/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::base {

absl::StatusOr<FileLock> FileLock::Acquire(const std::filesystem::path& file, Mode mode) {
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoToStatus(errno, fmt::format("opening {}", file.string()));
  const int op = mode == Mode::kShared ? LOCK_SH : LOCK_EX;
  while (::flock(fd.get(), op) != 0) {
    if (errno == EINTR) continue;
    return ErrnoToStatus(errno, fmt::format("locking {}", file.string()));
  }
  return FileLock(std::move(fd));
}

}  // namespace trainpkg::base
