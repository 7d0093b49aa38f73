// Free TCP ports on 127.0.0.1 for replica addresses. Each port stays bound
// (by a socket of this process, closed on exec) until Release(), so the ports
// of one reservation are distinct and no other process can take them before
// the replicas start.
#ifndef TRAINPKG_SDK_LOCAL_INTERNAL_PORT_RESERVATION_H_
#define TRAINPKG_SDK_LOCAL_INTERNAL_PORT_RESERVATION_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::local::internal {

class PortReservation {
 public:
  // Binds `count` sockets to 127.0.0.1:0. Errors name the failing call.
  static absl::StatusOr<PortReservation> Reserve(size_t count);

  PortReservation(PortReservation&& other) noexcept;
  PortReservation& operator=(PortReservation&& other) noexcept;
  ~PortReservation();  // Release()

  const std::vector<int>& ports() const { return ports_; }
  // Closes the sockets, making the ports available to the replicas.
  void Release();

 private:
  PortReservation() = default;
  std::vector<int> fds_;
  std::vector<int> ports_;
};

}  // namespace trainpkg::sdk::local::internal

#endif  // TRAINPKG_SDK_LOCAL_INTERNAL_PORT_RESERVATION_H_
