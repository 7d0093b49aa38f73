#include "sdk/local/internal/port_reservation.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "base/file_util.h"

namespace trainpkg::sdk::local::internal {

absl::StatusOr<PortReservation> PortReservation::Reserve(size_t count) {
  PortReservation reservation;
  for (size_t i = 0; i < count; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return base::ErrnoToStatus(errno, "creating a socket to reserve a port");
    reservation.fds_.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    // Bound but not listening: the kernel gives the port to no other bind
    // until Release(), and nothing can connect to it meanwhile.
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      return base::ErrnoToStatus(errno, "binding 127.0.0.1:0 to reserve a port");
    }
    socklen_t len = sizeof(addr);
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return base::ErrnoToStatus(errno, "reading a reserved port");
    }
    reservation.ports_.push_back(ntohs(addr.sin_port));
  }
  return reservation;
}

PortReservation::PortReservation(PortReservation&& other) noexcept
    : fds_(std::exchange(other.fds_, {})), ports_(std::move(other.ports_)) {}

PortReservation& PortReservation::operator=(PortReservation&& other) noexcept {
  if (this != &other) {
    Release();
    fds_ = std::exchange(other.fds_, {});
    ports_ = std::move(other.ports_);
  }
  return *this;
}

PortReservation::~PortReservation() { Release(); }

void PortReservation::Release() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

}  // namespace trainpkg::sdk::local::internal
