// A free TCP port on 127.0.0.1 for a test's servers (bound, read, released).
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_PS_FREE_PORT_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_PS_FREE_PORT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace trainpkg::testing {

inline int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_PS_FREE_PORT_H_
