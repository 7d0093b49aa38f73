#include "tests/test_util/loopback_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/check.h"

namespace trainpkg::testing {

LoopbackListener::LoopbackListener() {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  TP_CHECK(fd_ >= 0, "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  TP_CHECK(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0, "bind");
  TP_CHECK(::listen(fd_, 16) == 0, "listen");
  socklen_t length = sizeof(address);
  TP_CHECK(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0, "getsockname");
  port_ = ntohs(address.sin_port);
}

LoopbackListener::~LoopbackListener() { ::close(fd_); }

int LoopbackListener::Accepted() {
  for (int client; (client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
    ::close(client);
    ++accepted_;
  }
  return accepted_;
}

}  // namespace trainpkg::testing
