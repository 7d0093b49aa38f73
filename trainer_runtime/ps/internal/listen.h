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
#include "trainer_runtime/rpc_auth/job_auth.h"

namespace trainpkg::ps::internal {

struct Listening {
  std::string address;  // host:port actually bound
  int port = 0;
};

// FailedPrecondition for an address beyond loopback when `auth` has no
// secret (rpc_auth::JobAuth::CheckListenAddress); Unavailable naming the
// address when it cannot be bound. The service checks `auth` on each call.
absl::StatusOr<std::unique_ptr<grpc::Server>> Listen(std::string_view address,
                                                     grpc::Service* service, Listening* listening,
                                                     const rpc_auth::JobAuth& auth);

// A channel to "host:port" (one TCP connection of its own) whose calls
// carry auth's secret.
std::shared_ptr<grpc::Channel> Connect(const std::string& address, const rpc_auth::JobAuth& auth);

}  // namespace trainpkg::ps::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_LISTEN_H_
