#include "trainer_runtime/coordination/internal/coordination_service.h"

#include <utility>

#include "fmt/format.h"
#include "trainer_runtime/coordination/internal/grpc_status.h"

namespace trainpkg::coordination::internal {

grpc::Status CoordinationService::Register(grpc::ServerContext*,
                                           const proto::RegisterRequest* request,
                                           proto::RegisterResponse*) {
  if (request->world_size() != state_.world_size()) {
    return ToGrpcStatus(absl::InvalidArgumentError(
        fmt::format("rank {} believes the job has {} ranks; the coordinator has {}",
                    request->rank(), request->world_size(), state_.world_size())));
  }
  return ToGrpcStatus(state_.Register(request->rank()));
}

grpc::Status CoordinationService::Heartbeat(grpc::ServerContext*,
                                            const proto::HeartbeatRequest* request,
                                            proto::HeartbeatResponse* response) {
  absl::Status job = state_.Heartbeat(request->rank());
  if (absl::IsInvalidArgument(job)) return ToGrpcStatus(job);
  response->set_job_error_code(static_cast<int>(job.code()));
  response->set_job_error_message(std::string(job.message()));
  return grpc::Status::OK;
}

grpc::Status CoordinationService::KeySet(grpc::ServerContext*, const proto::KeySetRequest* request,
                                         proto::KeySetResponse*) {
  return ToGrpcStatus(state_.Set(request->rank(), request->key(), request->value()));
}

grpc::Status CoordinationService::KeyGet(grpc::ServerContext*, const proto::KeyGetRequest* request,
                                         proto::KeyGetResponse* response) {
  auto value =
      state_.Get(request->rank(), request->key(), absl::Milliseconds(request->timeout_ms()));
  if (!value.ok()) return ToGrpcStatus(value.status());
  response->set_value(*std::move(value));
  return grpc::Status::OK;
}

grpc::Status CoordinationService::KeyAdd(grpc::ServerContext*, const proto::KeyAddRequest* request,
                                         proto::KeyAddResponse* response) {
  auto value = state_.Add(request->rank(), request->key(), request->delta());
  if (!value.ok()) return ToGrpcStatus(value.status());
  response->set_value(*value);
  return grpc::Status::OK;
}

grpc::Status CoordinationService::Barrier(grpc::ServerContext*,
                                          const proto::BarrierRequest* request,
                                          proto::BarrierResponse*) {
  return ToGrpcStatus(
      state_.Barrier(request->rank(), request->name(), absl::Milliseconds(request->timeout_ms())));
}

grpc::Status CoordinationService::Goodbye(grpc::ServerContext*,
                                          const proto::GoodbyeRequest* request,
                                          proto::GoodbyeResponse*) {
  return ToGrpcStatus(state_.Goodbye(request->rank()));
}

}  // namespace trainpkg::coordination::internal
