// The gRPC face of CoordinationState: each RPC first checks the job secret
// (UNAUTHENTICATED without it), then forwards to the state and turns its
// absl::Status into the call's status.
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_COORDINATION_SERVICE_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_COORDINATION_SERVICE_H_

#include <utility>

#include "trainer_runtime/coordination/internal/coordination_state.h"
#include "trainer_runtime/coordination/proto/coordination.grpc.pb.h"
#include "trainer_runtime/rpc_auth/job_auth.h"

namespace trainpkg::coordination::internal {

class CoordinationService final : public proto::Coordination::Service {
 public:
  // `state` must outlive the service.
  CoordinationService(CoordinationState& state, rpc_auth::JobAuth auth)
      : state_(state), auth_(std::move(auth)) {}

  grpc::Status Register(grpc::ServerContext* context, const proto::RegisterRequest* request,
                        proto::RegisterResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const proto::HeartbeatRequest* request,
                         proto::HeartbeatResponse* response) override;
  grpc::Status KeySet(grpc::ServerContext* context, const proto::KeySetRequest* request,
                      proto::KeySetResponse* response) override;
  grpc::Status KeyGet(grpc::ServerContext* context, const proto::KeyGetRequest* request,
                      proto::KeyGetResponse* response) override;
  grpc::Status KeyAdd(grpc::ServerContext* context, const proto::KeyAddRequest* request,
                      proto::KeyAddResponse* response) override;
  grpc::Status Barrier(grpc::ServerContext* context, const proto::BarrierRequest* request,
                       proto::BarrierResponse* response) override;
  grpc::Status Goodbye(grpc::ServerContext* context, const proto::GoodbyeRequest* request,
                       proto::GoodbyeResponse* response) override;

 private:
  CoordinationState& state_;
  const rpc_auth::JobAuth auth_;
};

}  // namespace trainpkg::coordination::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_INTERNAL_COORDINATION_SERVICE_H_
