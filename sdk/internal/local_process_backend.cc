#include "sdk/internal/local_process_backend.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "jobspec/cluster_env.h"
#include "jobspec/custom_job_json.h"
#include "sdk/internal/env_expansion.h"
#include "sdk/internal/port_reservation.h"

namespace trainpkg::sdk::internal {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCodeCancelled = 1;
constexpr int kCodeReplicaFailed = 3;
constexpr int kCodeDeadlineExceeded = 4;
constexpr int kCodeInternal = 13;
constexpr int kParameterServerPool = 2;

// Durations beyond this (e.g. absl::InfiniteDuration()) mean "never".
constexpr absl::Duration kForever = absl::Hours(24 * 365 * 100);

Clock::time_point DeadlineAfter(absl::Duration d) {
  if (d >= kForever) return Clock::time_point::max();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            absl::ToChronoNanoseconds(std::max(d, absl::ZeroDuration())));
}

}  // namespace

LocalProcessBackend::LocalProcessBackend(LocalProcessBackendConfig config,
                                         std::shared_ptr<JobRecorder> recorder)
    : config_(std::move(config)), recorder_(std::move(recorder)) {}

LocalProcessBackend::~LocalProcessBackend() {
  Cancel(/*immediately=*/false);
  if (supervisor_.joinable()) supervisor_.join();
}

absl::Status LocalProcessBackend::Start() {
  supervisor_ = std::thread(&LocalProcessBackend::Supervise, this);
  return absl::OkStatus();
}

void LocalProcessBackend::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done_; });
}

void LocalProcessBackend::Cancel(bool immediately) {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_) return;
  cancel_ = true;
  kill_now_ = kill_now_ || immediately;
  cv_.notify_all();
}

bool LocalProcessBackend::CancelRequested() {
  bool from_store = config_.store.CancelRequested(config_.job_id);
  std::lock_guard<std::mutex> lock(mu_);
  cancel_ = cancel_ || from_store;
  return cancel_;
}

void LocalProcessBackend::Supervise() {
  recorder_->SetState(jobspec::JobState::kPending);
  std::optional<jobspec::RpcStatus> failure = StartReplicas();
  Outcome outcome = Outcome::kFailed;
  if (!failure.has_value()) {
    outcome = CancelRequested() ? Outcome::kCancelled : Monitor(failure);
  }
  if (outcome == Outcome::kCancelled) recorder_->SetState(jobspec::JobState::kCancelling);
  Stop();
  for (Replica& replica : replicas_) {
    if (replica.running != nullptr) replica.running->Finish();
  }
  switch (outcome) {
    case Outcome::kSucceeded:
      recorder_->SetState(jobspec::JobState::kSucceeded);
      break;
    case Outcome::kFailed:
      recorder_->SetState(jobspec::JobState::kFailed, failure);
      break;
    case Outcome::kCancelled:
      recorder_->SetState(jobspec::JobState::kCancelled,
                          jobspec::RpcStatus{.code = kCodeCancelled, .message = "CANCELLED"});
      break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

std::optional<jobspec::RpcStatus> LocalProcessBackend::StartReplicas() {
  const std::vector<ReplicaPlan>& plans = config_.plans;
  absl::StatusOr<PortReservation> ports = PortReservation::Reserve(plans.size());
  if (!ports.ok()) {
    return jobspec::RpcStatus{
        .code = kCodeInternal,
        .message = absl::StrCat("Reserving ports for the replicas: ", ports.status().message())};
  }
  std::vector<std::vector<std::string>> addresses(config_.spec.worker_pool_specs.size());
  replicas_.resize(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    std::string address = absl::StrCat("127.0.0.1:", ports->ports()[i]);
    addresses[static_cast<size_t>(plans[i].ref.pool)].push_back(address);
    replicas_[i].plan = &plans[i];
    replicas_[i].details.name = plans[i].ref.Name();
    replicas_[i].details.address = address;
    replicas_[i].details.argv = plans[i].argv;
  }
  std::vector<ProcessSpec> specs;
  for (const ReplicaPlan& plan : plans) {
    absl::StatusOr<std::map<std::string, std::string>> cluster_env =
        jobspec::MakeClusterEnv(jobspec::ClusterEnvRequest{.spec = config_.spec,
                                                           .job_id = config_.job_id,
                                                           .project_id = config_.project_id,
                                                           .trial_id = "",
                                                           .addresses = addresses,
                                                           .replica = plan.ref});
    if (!cluster_env.ok()) {
      return jobspec::RpcStatus{
          .code = kCodeInternal,
          .message = absl::StrCat("Making the environment of replica ", plan.ref.Name(), ": ",
                                  cluster_env.status().message())};
    }
    ProcessSpec spec{.name = plan.ref.Name(),
                     .program = plan.program,
                     .argv = plan.argv,
                     .env = config_.environment};
    for (auto& [name, value] : *cluster_env) spec.env.insert_or_assign(name, std::move(value));
    ApplyEnvVars(plan.env, spec.env);
    specs.push_back(std::move(spec));
  }
  ports->Release();
  // RUNNING from the first spawn on (Vertex's startTime), so no replica
  // output precedes it and short jobs get a true duration.
  if (CancelRequested()) return std::nullopt;
  recorder_->SetState(jobspec::JobState::kRunning);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (CancelRequested()) return std::nullopt;
    absl::StatusOr<std::unique_ptr<RunningReplica>> running = RunningReplica::Start(
        *config_.launcher, specs[i], config_.store.LogFile(config_.job_id, specs[i].name),
        config_.live, [this, i](ExitStatus status) { OnExit(i, status); });
    if (!running.ok()) {
      return jobspec::RpcStatus{
          .code = kCodeReplicaFailed,
          .message = absl::StrCat("The replica ", specs[i].name,
                                  " could not be started: ", running.status().message())};
    }
    std::lock_guard<std::mutex> lock(mu_);
    Replica& replica = replicas_[i];
    replica.details.pid = (*running)->pid();
    replica.details.pgid = (*running)->pid();
    replica.details.start_time = (*running)->start_time();
    replica.running = *std::move(running);
    recorder_->UpdateReplica(replica.details);
  }
  return std::nullopt;
}

LocalProcessBackend::Outcome LocalProcessBackend::Monitor(
    std::optional<jobspec::RpcStatus>& failure) {
  std::optional<absl::Duration> timeout;
  if (config_.spec.scheduling.has_value()) timeout = config_.spec.scheduling->timeout;
  Clock::time_point deadline =
      timeout.has_value() ? DeadlineAfter(*timeout) : Clock::time_point::max();
  for (;;) {
    CancelRequested();
    std::unique_lock<std::mutex> lock(mu_);
    const Replica* first_failed = nullptr;
    for (const Replica& replica : replicas_) {
      if (replica.exit.has_value() && !replica.exit->ok() &&
          (first_failed == nullptr || replica.exit_sequence < first_failed->exit_sequence)) {
        first_failed = &replica;
      }
    }
    if (first_failed != nullptr) {
      const std::string& name = first_failed->details.name;
      failure =
          jobspec::RpcStatus{.code = kCodeReplicaFailed,
                             .message = absl::StrCat(
                                 "The replica ", name, " ", DescribeExitStatus(*first_failed->exit),
                                 ". To find out more about why your job exited please check the "
                                 "logs: ",
                                 config_.store.LogFile(config_.job_id, name).string())};
      return Outcome::kFailed;
    }
    if (std::all_of(replicas_.begin(), replicas_.end(), [](const Replica& replica) {
          return replica.plan->ref.pool == kParameterServerPool || replica.exit.has_value();
        })) {
      return Outcome::kSucceeded;
    }
    if (cancel_) return Outcome::kCancelled;
    if (Clock::now() >= deadline) {
      failure =
          jobspec::RpcStatus{.code = kCodeDeadlineExceeded,
                             .message = absl::StrCat("The job exceeded its timeout of ",
                                                     jobspec::FormatDuration(*timeout),
                                                     " (scheduling.timeout) and was stopped.")};
      return Outcome::kFailed;
    }
    cv_.wait_until(lock, std::min(deadline, DeadlineAfter(config_.cancel_poll_interval)));
  }
}

void LocalProcessBackend::Stop() {
  std::unique_lock<std::mutex> lock(mu_);
  auto all_reaped = [this] {
    return std::all_of(replicas_.begin(), replicas_.end(), [](const Replica& replica) {
      return replica.running == nullptr || replica.exit.has_value();
    });
  };
  auto signal_running = [this](int signal) {
    for (Replica& replica : replicas_) {
      if (replica.running != nullptr && !replica.exit.has_value()) {
        replica.running->SignalGroup(signal);
      }
    }
  };
  if (all_reaped()) return;
  signal_running(SIGTERM);
  cv_.wait_until(lock, DeadlineAfter(config_.grace_period),
                 [&] { return kill_now_ || all_reaped(); });
  signal_running(SIGKILL);
  cv_.wait(lock, all_reaped);
}

void LocalProcessBackend::OnExit(size_t index, ExitStatus status) {
  std::lock_guard<std::mutex> lock(mu_);
  Replica& replica = replicas_[index];
  replica.exit = status;
  replica.exit_sequence = ++exits_;
  replica.details.exit_status = status;
  recorder_->UpdateReplica(replica.details);
  cv_.notify_all();
}

}  // namespace trainpkg::sdk::internal
