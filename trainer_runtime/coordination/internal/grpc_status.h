// absl::Status <-> grpc::Status. The two share their code numbering.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_GRPC_STATUS_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace trainpkg::coordination::internal {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace trainpkg::coordination::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_GRPC_STATUS_H_
