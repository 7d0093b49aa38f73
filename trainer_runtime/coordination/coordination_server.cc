#include "trainer_runtime/coordination/coordination_server.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "fmt/format.h"
#include "grpcpp/grpcpp.h"
#include "trainer_runtime/coordination/internal/coordination_service.h"
#include "trainer_runtime/coordination/internal/coordination_state.h"
#include "trainer_runtime/rpc_auth/job_auth.h"

namespace trainpkg::coordination {
namespace {

class GrpcCoordinationServer final : public CoordinationServer {
 public:
  GrpcCoordinationServer(std::string host, std::vector<std::string> rank_names,
                         const CoordinationOptions& options)
      : host_(std::move(host)),
        options_(options),
        state_({.world_size = static_cast<int>(rank_names.size()),
                .rank_names = std::move(rank_names),
                .heartbeat_timeout = options.heartbeat_timeout,
                .rendezvous_timeout = options.rendezvous_timeout,
                .start = absl::Now()}),
        service_(state_, rpc_auth::JobAuth(options.job_secret)) {}

  ~GrpcCoordinationServer() override { Stop(); }

  absl::Status Listen(const std::string& address) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port_ == 0) {
      return absl::UnavailableError(fmt::format("coordinator cannot listen on {}", address));
    }
    monitor_ = std::thread([this] { Monitor(); });
    return absl::OkStatus();
  }

  int port() const override { return port_; }
  std::string address() const override { return fmt::format("{}:{}", host_, port_); }
  absl::Status JobStatus() const override { return state_.JobStatus(); }

  // Rank 0 hosts the server, so it must outlive the others' last calls:
  // stopping before their goodbyes would look to them like a lost coordinator.
  absl::Status Shutdown() override {
    absl::Status goodbyes = state_.WaitForGoodbyes(absl::Now() + options_.shutdown_timeout);
    Stop();
    absl::Status job = state_.JobStatus();
    return job.ok() ? goodbyes : job;
  }

 private:
  // Checks liveness often enough to notice a silent rank within a tenth of
  // the heartbeat timeout.
  void Monitor() {
    const absl::Duration period =
        std::clamp(options_.heartbeat_timeout / 10, absl::Milliseconds(10), absl::Seconds(1));
    while (!stopping_.WaitForNotificationWithTimeout(period)) state_.CheckLiveness(absl::Now());
  }

  void Stop() {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_.Notify();
    if (monitor_.joinable()) monitor_.join();
    // The state first: blocked handlers return Unavailable, so the server's
    // shutdown below does not wait for them.
    state_.Shutdown();
    if (server_ != nullptr) server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  }

  const std::string host_;
  const CoordinationOptions options_;
  internal::CoordinationState state_;
  internal::CoordinationService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::thread monitor_;
  absl::Notification stopping_;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CoordinationServer>> CoordinationServer::Start(
    std::string_view address, std::vector<std::string> rank_names,
    const CoordinationOptions& options) {
  if (rank_names.empty()) {
    return absl::InvalidArgumentError("a coordination server needs at least one rank");
  }
  const std::string bind(address);
  const size_t colon = bind.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(fmt::format("coordinator address '{}' has no port", bind));
  }
  if (absl::Status allowed = rpc_auth::JobAuth(options.job_secret).CheckListenAddress(bind);
      !allowed.ok()) {
    return allowed;
  }
  auto server = std::make_unique<GrpcCoordinationServer>(bind.substr(0, colon),
                                                         std::move(rank_names), options);
  if (auto status = server->Listen(bind); !status.ok()) return status;
  return server;
}

}  // namespace trainpkg::coordination
