#include "trainer_runtime/ps/step_runner.h"

#include <chrono>
#include <utility>

#include "base/grpc_status.h"
#include "fmt/format.h"
#include "grpcpp/grpcpp.h"
#include "trainer_runtime/ps/internal/listen.h"
#include "trainer_runtime/ps/proto/ps.grpc.pb.h"

namespace trainpkg::ps {
namespace {

std::chrono::system_clock::time_point After(absl::Duration d) {
  return std::chrono::system_clock::now() + std::chrono::milliseconds(absl::ToInt64Milliseconds(d));
}

}  // namespace

struct GrpcStepRunner::Stub {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<proto::Worker::Stub> stub;
};

GrpcStepRunner::GrpcStepRunner(std::string name, const std::string& address,
                               absl::Duration step_timeout, std::string job_secret)
    : name_(std::move(name)), step_timeout_(step_timeout), stub_(std::make_unique<Stub>()) {
  stub_->channel = internal::Connect(address, rpc_auth::JobAuth(std::move(job_secret)));
  stub_->stub = proto::Worker::NewStub(stub_->channel);
}

GrpcStepRunner::~GrpcStepRunner() = default;

absl::StatusOr<StepResult> GrpcStepRunner::RunStep(int64_t step) {
  grpc::ClientContext context;
  context.set_deadline(After(step_timeout_));
  proto::RunStepRequest request;
  request.set_step(step);
  proto::RunStepResponse response;
  absl::Status s = base::FromGrpcStatus(stub_->stub->RunStep(&context, request, &response));
  if (!s.ok()) return s;
  return StepResult{response.loss(), response.correct(), response.examples()};
}

absl::Status GrpcStepRunner::Shutdown() {
  grpc::ClientContext context;
  context.set_deadline(After(absl::Seconds(5)));
  proto::ShutdownRequest request;
  proto::ShutdownResponse response;
  return base::FromGrpcStatus(stub_->stub->Shutdown(&context, request, &response));
}

absl::Status GrpcStepRunner::WaitUntilReady(absl::Duration timeout) {
  if (stub_->channel->WaitForConnected(After(timeout))) return absl::OkStatus();
  return absl::UnavailableError(
      fmt::format("{} did not come up within {}", name_, absl::FormatDuration(timeout)));
}

}  // namespace trainpkg::ps
