#include "packager/builder/store_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::builder {

absl::StatusOr<StoreLock> StoreLock::Acquire(const std::filesystem::path& file, Mode mode) {
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", file.string()));
  // flock: the kernel drops it when the process dies, so a killed build
  // never leaves the store locked.
  int op = mode == Mode::kShared ? LOCK_SH : LOCK_EX;
  while (::flock(fd, op) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return base::ErrnoToStatus(err, fmt::format("locking {}", file.string()));
  }
  return StoreLock(fd);
}

absl::StatusOr<StoreLock> StoreLock::ForCollection(const std::filesystem::path& store_dir,
                                                   Mode mode) {
  return Acquire(store_dir / "gc.lock", mode);
}

StoreLock& StoreLock::operator=(StoreLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace trainpkg::packager::builder
