// Starting a gRPC server for one service on "host:port", and channels to
// one. Both keep gRPC's default 4 MiB limit on a received message: tensors
// travel in chunks (chunks.h), so no message comes near it.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_LISTEN_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_LISTEN_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"

namespace trainpkg::ps::internal {

struct Listening {
  std::string address;  // host:port actually bound
  int port = 0;
};

// Unavailable naming the address when it cannot be bound.
absl::StatusOr<std::unique_ptr<grpc::Server>> Listen(std::string_view address,
                                                     grpc::Service* service, Listening* listening);

// An insecure channel to "host:port" (one TCP connection of its own).
std::shared_ptr<grpc::Channel> Connect(const std::string& address);

}  // namespace trainpkg::ps::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_LISTEN_H_
