// absl::Status <-> grpc::Status (the two share their code numbering).
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_GRPC_STATUS_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace trainpkg::ps::internal {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace trainpkg::ps::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_GRPC_STATUS_H_
