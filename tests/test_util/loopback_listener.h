// A TCP listener on 127.0.0.1 (a free port) that counts the connections
// made to it: "a host-loopback service" for tests that check a container
// cannot reach one.
#ifndef TRAINPKG_TESTS_TEST_UTIL_LOOPBACK_LISTENER_H_
#define TRAINPKG_TESTS_TEST_UTIL_LOOPBACK_LISTENER_H_

namespace trainpkg::testing {

class LoopbackListener {
 public:
  LoopbackListener();  // aborts the test binary when no socket can be had
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
  ~LoopbackListener();

  int port() const { return port_; }
  // Accepts (and closes) what is pending; returns how many connections were
  // accepted so far.
  int Accepted();

 private:
  int fd_ = -1;
  int port_ = 0;
  int accepted_ = 0;
};

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_LOOPBACK_LISTENER_H_
