#include "trainer_runtime/ps/worker_server.h"

#include <chrono>
#include <mutex>
#include <utility>

#include "absl/synchronization/notification.h"
#include "base/grpc_status.h"
#include "grpcpp/grpcpp.h"
#include "trainer_runtime/ps/internal/listen.h"
#include "trainer_runtime/ps/proto/ps.grpc.pb.h"

namespace trainpkg::ps {
namespace {

class Service final : public proto::Worker::Service {
 public:
  Service(StepFunction step, rpc_auth::JobAuth auth)
      : auth_(std::move(auth)), step_(std::move(step)) {}
  const rpc_auth::JobAuth& auth() const { return auth_; }
  absl::Notification& shutdown() { return shutdown_; }

  grpc::Status RunStep(grpc::ServerContext* context, const proto::RunStepRequest* request,
                       proto::RunStepResponse* response) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    // One step at a time: the step function drives the worker's one model
    // replica, and a call retried after a timeout may overlap the first.
    std::lock_guard<std::mutex> lock(mu_);
    absl::StatusOr<StepResult> result = step_(request->step());
    if (!result.ok()) return base::ToGrpcStatus(result.status());
    response->set_loss(result->loss);
    response->set_correct(result->correct);
    response->set_examples(result->examples);
    return grpc::Status::OK;
  }

  grpc::Status Shutdown(grpc::ServerContext* context, const proto::ShutdownRequest*,
                        proto::ShutdownResponse*) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    if (!shutdown_.HasBeenNotified()) shutdown_.Notify();
    return grpc::Status::OK;
  }

 private:
  const rpc_auth::JobAuth auth_;
  std::mutex mu_;
  StepFunction step_;
  absl::Notification shutdown_;
};

class WorkerServerImpl final : public WorkerServer {
 public:
  WorkerServerImpl(std::unique_ptr<Service> service, std::unique_ptr<grpc::Server> server,
                   internal::Listening listening)
      : service_(std::move(service)),
        server_(std::move(server)),
        listening_(std::move(listening)) {}
  ~WorkerServerImpl() override { server_->Shutdown(); }
  int port() const override { return listening_.port; }
  std::string address() const override { return listening_.address; }
  void WaitForShutdown() override {
    service_->shutdown().WaitForNotification();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

 private:
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  internal::Listening listening_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(std::string_view address,
                                                                  StepFunction step,
                                                                  std::string job_secret) {
  auto service =
      std::make_unique<Service>(std::move(step), rpc_auth::JobAuth(std::move(job_secret)));
  internal::Listening listening;
  auto server = internal::Listen(address, service.get(), &listening, service->auth());
  if (!server.ok()) return server.status();
  return std::unique_ptr<WorkerServer>(
      new WorkerServerImpl(std::move(service), *std::move(server), std::move(listening)));
}

}  // namespace trainpkg::ps
