// An owned file descriptor, closed on destruction. Movable, not copyable.
#ifndef TRAINPKG_PACKAGER_UNPACK_INTERNAL_UNIQUE_FD_H_
#define TRAINPKG_PACKAGER_UNPACK_INTERNAL_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace trainpkg::packager::unpack::internal {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace trainpkg::packager::unpack::internal

#endif  // TRAINPKG_PACKAGER_UNPACK_INTERNAL_UNIQUE_FD_H_
