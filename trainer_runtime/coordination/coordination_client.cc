#include "trainer_runtime/coordination/coordination_client.h"

#include <algorithm>
#include <functional>
#include <set>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "base/grpc_status.h"
#include "base/status_context.h"
#include "fmt/format.h"
#include "grpcpp/grpcpp.h"
#include "trainer_runtime/coordination/proto/coordination.grpc.pb.h"
#include "trainer_runtime/rpc_auth/job_auth.h"

namespace trainpkg::coordination {
namespace {

namespace proto = ::trainpkg::coordination::proto;

int64_t Millis(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

class GrpcCoordinationClient final : public CoordinationClient {
 public:
  GrpcCoordinationClient(std::string address, int rank, std::vector<std::string> rank_names,
                         const CoordinationOptions& options)
      : address_(std::move(address)),
        rank_(rank),
        rank_names_(std::move(rank_names)),
        options_(options),
        stub_(
            proto::Coordination::NewStub(rpc_auth::JobAuth(options.job_secret).Connect(address_))) {
  }

  ~GrpcCoordinationClient() override {
    StopHeartbeats();
    CancelInFlight();
  }

  int rank() const override { return rank_; }
  int world_size() const override { return static_cast<int>(rank_names_.size()); }
  const std::string& RankName(int rank) const override {
    return rank_names_.at(static_cast<size_t>(rank));
  }

  absl::Status Register() override {
    {
      absl::MutexLock lock(&mu_);
      started_ = absl::Now();
      heartbeats_running_ = true;
    }
    // Heartbeats start before Register, which blocks until every rank has
    // joined: the coordinator counts a joined rank that stays silent for the
    // heartbeat timeout as dead, and the first ranks may wait far longer than
    // that for the last.
    heartbeat_thread_ = std::thread([this] { HeartbeatLoop(); });
    proto::RegisterRequest request;
    request.set_rank(rank_);
    request.set_world_size(world_size());
    proto::RegisterResponse response;
    return Call(
        // wait_for_ready: rank 0 may not be listening yet when the others start;
        // the call waits for the channel instead of failing at once with Unavailable.
        "rendezvous", options_.rendezvous_timeout, /*wait_for_ready=*/true,
        [&](grpc::ClientContext* context) { return stub_->Register(context, request, &response); });
  }

  absl::Status Set(std::string_view key, std::string_view value) override {
    proto::KeySetRequest request;
    request.set_rank(rank_);
    request.set_key(std::string(key));
    request.set_value(std::string(value));
    proto::KeySetResponse response;
    return Call(
        fmt::format("setting key '{}'", key), absl::ZeroDuration(), false,
        [&](grpc::ClientContext* context) { return stub_->KeySet(context, request, &response); });
  }

  absl::StatusOr<std::string> Get(std::string_view key, absl::Duration timeout) override {
    proto::KeyGetRequest request;
    request.set_rank(rank_);
    request.set_key(std::string(key));
    // The server waits out `timeout` itself and answers DeadlineExceeded naming
    // the key; the call's own deadline is later (see Call), so that answer
    // arrives before gRPC's bare one.
    request.set_timeout_ms(Millis(timeout));
    proto::KeyGetResponse response;
    absl::Status status = Call(
        fmt::format("getting key '{}'", key), timeout, false,
        [&](grpc::ClientContext* context) { return stub_->KeyGet(context, request, &response); });
    if (!status.ok()) return status;
    return std::move(*response.mutable_value());
  }

  absl::StatusOr<int64_t> Add(std::string_view key, int64_t delta) override {
    proto::KeyAddRequest request;
    request.set_rank(rank_);
    request.set_key(std::string(key));
    request.set_delta(delta);
    proto::KeyAddResponse response;
    absl::Status status = Call(
        fmt::format("adding to key '{}'", key), absl::ZeroDuration(), false,
        [&](grpc::ClientContext* context) { return stub_->KeyAdd(context, request, &response); });
    if (!status.ok()) return status;
    return response.value();
  }

  absl::Status Barrier(std::string_view name, absl::Duration timeout) override {
    proto::BarrierRequest request;
    request.set_rank(rank_);
    request.set_name(std::string(name));
    request.set_timeout_ms(Millis(timeout));
    proto::BarrierResponse response;
    return Call(
        fmt::format("barrier '{}'", name), timeout, false,
        [&](grpc::ClientContext* context) { return stub_->Barrier(context, request, &response); });
  }

  absl::Duration FailureDetectionBound() const override {
    return options_.heartbeat_timeout + 2 * options_.heartbeat_interval +
           std::clamp(options_.heartbeat_timeout / 10, absl::Milliseconds(10), absl::Seconds(1));
  }

  absl::Status JobStatus() const override {
    absl::MutexLock lock(&mu_);
    return failure_;
  }

  absl::Status WaitForJobFailure(absl::Duration timeout) const override {
    absl::MutexLock lock(&mu_);
    auto failed = [this] {
      mu_.AssertHeld();
      return !failure_.ok();
    };
    mu_.AwaitWithTimeout(absl::Condition(&failed), timeout);
    return failure_;
  }

  absl::Status Goodbye() override {
    {
      absl::MutexLock lock(&mu_);
      if (said_goodbye_) return absl::OkStatus();
    }
    StopHeartbeats();
    proto::GoodbyeRequest request;
    request.set_rank(rank_);
    proto::GoodbyeResponse response;
    // Sent even after a failure, so the coordinator need not wait for us.
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.heartbeat_timeout));
    const grpc::Status result = stub_->Goodbye(&context, request, &response);
    const absl::Status status = base::WithContext(
        base::FromGrpcStatus(result), fmt::format("goodbye to coordinator {}", CoordinatorName()));
    absl::MutexLock lock(&mu_);
    said_goodbye_ = true;
    return status;
  }

 private:
  const std::string& CoordinatorName() const { return rank_names_.front(); }

  // Runs one RPC. `wait` is how long the server may legitimately block; the
  // call's deadline adds the heartbeat timeout to it, though a failure found
  // by the heartbeats cancels it sooner.
  absl::Status Call(const std::string& what, absl::Duration wait, bool wait_for_ready,
                    const std::function<grpc::Status(grpc::ClientContext*)>& rpc) {
    grpc::ClientContext context;
    context.set_wait_for_ready(wait_for_ready);
    context.set_deadline(absl::ToChronoTime(absl::Now() + wait + options_.heartbeat_timeout));
    {
      absl::MutexLock lock(&mu_);
      if (!failure_.ok()) return failure_;
      if (said_goodbye_) {
        return absl::FailedPreconditionError(
            fmt::format("{}: {} already said goodbye", what, RankName(rank_)));
      }
      in_flight_.insert(&context);
    }
    const grpc::Status result = rpc(&context);
    {
      absl::MutexLock lock(&mu_);
      in_flight_.erase(&context);
    }
    if (result.ok()) return absl::OkStatus();
    const absl::Status status = base::FromGrpcStatus(result);
    if (absl::IsAborted(status)) {
      RecordFailure(status);
      return status;
    }
    if (absl::IsUnavailable(status) || absl::IsCancelled(status)) {
      // Cancelled is what RecordFailure's TryCancel gives a call in flight; the
      // failure that caused it is then the better answer.
      // A lost connection: the heartbeats soon say whether the job failed.
      absl::Status failure = WaitForJobFailure(FailureDetectionBound());
      if (!failure.ok()) return failure;
    }
    return base::WithContext(status, fmt::format("{} at coordinator {}", what, CoordinatorName()));
  }

  void HeartbeatLoop() {
    absl::Time last_contact = absl::InfinitePast();
    absl::MutexLock lock(&mu_);
    while (heartbeats_running_) {
      mu_.Unlock();
      grpc::ClientContext context;
      // A missed reply is not yet a failure: only no contact for the heartbeat
      // timeout is. The 500 ms floor keeps very short intervals from failing
      // heartbeats that a loaded coordinator merely answers late.
      context.set_deadline(absl::ToChronoTime(
          absl::Now() + std::max(options_.heartbeat_interval, absl::Milliseconds(500))));
      proto::HeartbeatRequest request;
      request.set_rank(rank_);
      proto::HeartbeatResponse response;
      const grpc::Status result = stub_->Heartbeat(&context, request, &response);
      const absl::Time now = absl::Now();
      absl::Status failure;
      if (result.ok()) {
        last_contact = now;
        // The coordinator's verdict travels on the heartbeat, so every rank learns
        // of a failure within one interval even when it is not calling the store.
        if (response.job_error_code() != 0) {
          failure = absl::Status(static_cast<absl::StatusCode>(response.job_error_code()),
                                 response.job_error_message());
        }
      } else {
        const bool contacted = last_contact != absl::InfinitePast();
        const absl::Time since = contacted ? last_contact : started_;
        // Before the first contact rank 0 may still be starting its server, which
        // the rendezvous timeout allows for; after it, silence means the
        // coordinator is gone.
        const absl::Duration limit =
            contacted ? options_.heartbeat_timeout : options_.rendezvous_timeout;
        if (now - since > limit) {
          failure = absl::AbortedError(fmt::format(
              "lost the coordinator, {}: no answer for {} (last error: {})", CoordinatorName(),
              absl::FormatDuration(absl::Trunc(now - since, absl::Milliseconds(100))),
              result.error_message()));
        }
      }
      if (!failure.ok()) {
        RecordFailure(failure);
        mu_.Lock();
        return;
      }
      mu_.Lock();
      auto stopped = [this] {
        mu_.AssertHeld();
        return !heartbeats_running_;
      };
      mu_.AwaitWithTimeout(absl::Condition(&stopped), options_.heartbeat_interval);
    }
  }

  void RecordFailure(const absl::Status& failure) {
    {
      absl::MutexLock lock(&mu_);
      if (failure_.ok()) failure_ = failure;
    }
    // Blocking calls (Get, Barrier) are cancelled so that none waits out its
    // own timeout on a job that has already failed.
    CancelInFlight();
  }

  void CancelInFlight() {
    absl::MutexLock lock(&mu_);
    for (grpc::ClientContext* context : in_flight_) context->TryCancel();
  }

  void StopHeartbeats() {
    {
      absl::MutexLock lock(&mu_);
      heartbeats_running_ = false;
    }
    if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  }

  const std::string address_;
  const int rank_;
  const std::vector<std::string> rank_names_;
  const CoordinationOptions options_;
  std::unique_ptr<proto::Coordination::Stub> stub_;
  std::thread heartbeat_thread_;

  mutable absl::Mutex mu_;
  absl::Time started_ ABSL_GUARDED_BY(mu_);
  bool heartbeats_running_ ABSL_GUARDED_BY(mu_) = false;
  bool said_goodbye_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status failure_ ABSL_GUARDED_BY(mu_);
  std::set<grpc::ClientContext*> in_flight_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<CoordinationClient>> CoordinationClient::Create(
    std::string_view coordinator_address, int rank, std::vector<std::string> rank_names,
    const CoordinationOptions& options) {
  if (rank < 0 || static_cast<size_t>(rank) >= rank_names.size()) {
    return absl::InvalidArgumentError(
        fmt::format("rank {} is outside the job's {} ranks", rank, rank_names.size()));
  }
  return std::make_unique<GrpcCoordinationClient>(std::string(coordinator_address), rank,
                                                  std::move(rank_names), options);
}

}  // namespace trainpkg::coordination
