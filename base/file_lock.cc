#include "base/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::base {

absl::StatusOr<FileLock> FileLock::Acquire(const std::filesystem::path& file, Mode mode) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoToStatus(errno, fmt::format("opening {}", file.string()));
  const int op = mode == Mode::kShared ? LOCK_SH : LOCK_EX;
  while (::flock(fd, op) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    return ErrnoToStatus(err, fmt::format("locking {}", file.string()));
  }
  return FileLock(fd);
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace trainpkg::base
