#include "sdk/local/internal/port_reservation.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::local::internal {
namespace {

bool CanBind(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

TEST(PortReservationTest, PortsAreDistinctAndHeldUntilReleased) {
  absl::StatusOr<PortReservation> reservation = PortReservation::Reserve(16);
  ASSERT_THAT(reservation, IsOk());
  const std::vector<int> ports = reservation->ports();
  ASSERT_EQ(ports.size(), 16u);
  EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), ports.size());
  for (int port : ports) {
    EXPECT_GT(port, 0);
    EXPECT_FALSE(CanBind(port)) << port;
  }
  reservation->Release();
  EXPECT_TRUE(CanBind(ports[0]));
}

TEST(PortReservationTest, ZeroPortsIsEmpty) {
  absl::StatusOr<PortReservation> reservation = PortReservation::Reserve(0);
  ASSERT_THAT(reservation, IsOk());
  EXPECT_TRUE(reservation->ports().empty());
}

}  // namespace
}  // namespace trainpkg::sdk::local::internal
