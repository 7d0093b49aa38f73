// absl::Status <-> grpc::Status, for the modules that speak gRPC. The two
// number their codes alike (both follow google.rpc.Code), so a code crosses
// unchanged; the message crosses as it is. Payloads (absl) and error details
// (gRPC) do not cross. Built as its own target, trainpkg_grpc_status, so
// that only what links gRPC anyway depends on gRPC.
#ifndef TRAINPKG_BASE_GRPC_STATUS_H_
#define TRAINPKG_BASE_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace trainpkg::base {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_GRPC_STATUS_H_
