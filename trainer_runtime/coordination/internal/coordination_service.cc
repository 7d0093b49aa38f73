#include "trainer_runtime/coordination/internal/coordination_service.h"

#include <utility>

#include "base/grpc_status.h"
#include "fmt/format.h"

namespace trainpkg::coordination::internal {

grpc::Status CoordinationService::Register(grpc::ServerContext* context,
                                           const proto::RegisterRequest* request,
                                           proto::RegisterResponse*) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  if (request->world_size() != state_.world_size()) {
    return base::ToGrpcStatus(absl::InvalidArgumentError(
        fmt::format("rank {} believes the job has {} ranks; the coordinator has {}",
                    request->rank(), request->world_size(), state_.world_size())));
  }
  return base::ToGrpcStatus(state_.Register(request->rank()));
}

grpc::Status CoordinationService::Heartbeat(grpc::ServerContext* context,
                                            const proto::HeartbeatRequest* request,
                                            proto::HeartbeatResponse* response) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  absl::Status job = state_.Heartbeat(request->rank());
  if (absl::IsInvalidArgument(job)) return base::ToGrpcStatus(job);
  response->set_job_error_code(static_cast<int>(job.code()));
  response->set_job_error_message(std::string(job.message()));
  return grpc::Status::OK;
}

grpc::Status CoordinationService::KeySet(grpc::ServerContext* context,
                                         const proto::KeySetRequest* request,
                                         proto::KeySetResponse*) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  return base::ToGrpcStatus(state_.Set(request->rank(), request->key(), request->value()));
}

grpc::Status CoordinationService::KeyGet(grpc::ServerContext* context,
                                         const proto::KeyGetRequest* request,
                                         proto::KeyGetResponse* response) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  auto value =
      state_.Get(request->rank(), request->key(), absl::Milliseconds(request->timeout_ms()));
  if (!value.ok()) return base::ToGrpcStatus(value.status());
  response->set_value(*std::move(value));
  return grpc::Status::OK;
}

grpc::Status CoordinationService::KeyAdd(grpc::ServerContext* context,
                                         const proto::KeyAddRequest* request,
                                         proto::KeyAddResponse* response) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  auto value = state_.Add(request->rank(), request->key(), request->delta());
  if (!value.ok()) return base::ToGrpcStatus(value.status());
  response->set_value(*value);
  return grpc::Status::OK;
}

grpc::Status CoordinationService::Barrier(grpc::ServerContext* context,
                                          const proto::BarrierRequest* request,
                                          proto::BarrierResponse*) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  return base::ToGrpcStatus(
      state_.Barrier(request->rank(), request->name(), absl::Milliseconds(request->timeout_ms())));
}

grpc::Status CoordinationService::Goodbye(grpc::ServerContext* context,
                                          const proto::GoodbyeRequest* request,
                                          proto::GoodbyeResponse*) {
  if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
  return base::ToGrpcStatus(state_.Goodbye(request->rank()));
}

}  // namespace trainpkg::coordination::internal
