#include "sdk/internal/replica_set.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "sdk/internal/job_errors.h"
#include "sdk/internal/restart_policy.h"

namespace trainpkg::sdk::internal {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kParameterServerPool = 2;

// Durations beyond this (e.g. absl::InfiniteDuration()) mean "never".
constexpr absl::Duration kForever = absl::Hours(24 * 365 * 100);

Clock::time_point DeadlineAfter(absl::Duration d) {
  if (d >= kForever) return Clock::time_point::max();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            absl::ToChronoNanoseconds(std::max(d, absl::ZeroDuration())));
}

}  // namespace

ReplicaSet::ReplicaSet(const SupervisedJobConfig& config, std::shared_ptr<JobRecorder> recorder)
    : config_(config), recorder_(std::move(recorder)) {}

void ReplicaSet::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done_; });
}

void ReplicaSet::Cancel(bool immediately) {
  std::lock_guard<std::mutex> lock(mu_);
  if (done_) return;
  cancel_ = true;
  kill_now_ = kill_now_ || immediately;
  cv_.notify_all();
}

bool ReplicaSet::CancelRequested() {
  bool from_store = config_.store.CancelRequested(config_.job_id);
  std::lock_guard<std::mutex> lock(mu_);
  cancel_ = cancel_ || from_store;
  return cancel_;
}

void ReplicaSet::Reset(std::vector<Replica> replicas) {
  std::lock_guard<std::mutex> lock(mu_);
  replicas_ = std::move(replicas);
  exits_ = 0;
}

absl::Status ReplicaSet::StartReplica(size_t i, ProcessLauncher& launcher,
                                      const ProcessSpec& spec) {
  absl::StatusOr<std::unique_ptr<RunningReplica>> running =
      RunningReplica::Start(launcher, spec, config_.store.LogFile(config_.job_id, spec.name),
                            config_.live, [this, i](ExitStatus status) { OnExit(i, status); });
  if (!running.ok()) return running.status();
  std::lock_guard<std::mutex> lock(mu_);
  Replica& replica = replicas_[i];
  replica.details.pid = (*running)->pid();
  // Each replica leads its own process group, so a signal reaches the
  // processes it started too.
  replica.details.pgid = (*running)->pid();
  replica.details.start_time = (*running)->start_time();
  replica.running = *std::move(running);
  return absl::OkStatus();
}

void ReplicaSet::RecordStarted() {
  std::vector<ReplicaDetails> started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Replica& replica : replicas_) {
      if (replica.running != nullptr) started.push_back(replica.details);
    }
  }
  recorder_->UpdateReplicas(started);
}

ReplicaSet::Outcome ReplicaSet::Monitor(std::optional<jobspec::RpcStatus>& failure) {
  std::optional<absl::Duration> timeout;
  if (config_.spec.scheduling.has_value()) timeout = config_.spec.scheduling->timeout;
  Clock::time_point deadline =
      timeout.has_value() ? DeadlineAfter(*timeout) : Clock::time_point::max();
  for (;;) {
    CancelRequested();
    std::unique_lock<std::mutex> lock(mu_);
    const Replica* first_failed = nullptr;
    for (const Replica& replica : replicas_) {
      // The first failure is the cause; later ones are usually peers reacting
      // to it (a collective losing a member), so the job reports the first.
      if (replica.exit.has_value() && !replica.exit->ok() &&
          (first_failed == nullptr || replica.exit_sequence < first_failed->exit_sequence)) {
        first_failed = &replica;
      }
    }
    if (first_failed != nullptr) {
      failure =
          ReplicaFailedError(first_failed->failure_name, *first_failed->exit,
                             config_.store.LogFile(config_.job_id, first_failed->details.name));
      return Outcome::kFailed;
    }
    if (std::all_of(replicas_.begin(), replicas_.end(), [](const Replica& replica) {
          // Parameter servers (pool 2) serve until they are stopped: the job succeeds
          // once every other replica has exited.
          return replica.pool == kParameterServerPool || replica.exit.has_value();
        })) {
      return Outcome::kSucceeded;
    }
    if (cancel_) return Outcome::kCancelled;
    if (Clock::now() >= deadline) {
      failure = TimeoutError(*timeout);
      return Outcome::kFailed;
    }
    // Woken by every exit; otherwise the store's cancel file is polled each
    // cancel_poll_interval.
    cv_.wait_until(lock, std::min(deadline, DeadlineAfter(config_.cancel_poll_interval)));
  }
}

ReplicaSet::Outcome ReplicaSet::Supervise(const StartReplicas& start,
                                          std::optional<jobspec::RpcStatus>& failure) {
  const int restart_budget = JobRestartBudget(config_.spec);
  for (int restarts = 0;; ++restarts) {
    failure = start(restarts);
    if (failure.has_value()) return Outcome::kFailed;
    const Outcome outcome = CancelRequested() ? Outcome::kCancelled : Monitor(failure);
    const bool replica_failed = outcome == Outcome::kFailed && failure.has_value() &&
                                failure->code == kCodeReplicaFailed;
    if (!replica_failed || restarts >= restart_budget) return outcome;
    // restartJobOnWorkerRestart: stop every replica and start the job again.
    std::string line = absl::StrCat(failure->message, " Restarting all replicas (restart ",
                                    restarts + 1, " of at most ", restart_budget, ").");
    TP_LOG(INFO, "job {}: {}", config_.job_id, line);
    if (config_.live != nullptr) config_.live->WriteLine("", line);
    Stop();
    FinishAll();
    Reset({});
  }
}

void ReplicaSet::Stop() {
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
  // SIGTERM, the grace period, then SIGKILL, as Kubernetes stops a pod:
  // trainers get the time to write a checkpoint.
  signal_running(SIGTERM);
  cv_.wait_until(lock, DeadlineAfter(config_.grace_period),
                 [&] { return kill_now_ || all_reaped(); });
  signal_running(SIGKILL);
  cv_.wait(lock, all_reaped);
}

void ReplicaSet::FinishAll() {
  for (Replica& replica : replicas_) {
    if (replica.running != nullptr) replica.running->Finish();
  }
}

void ReplicaSet::Done(Outcome outcome, std::optional<jobspec::RpcStatus> failure) {
  switch (outcome) {
    case Outcome::kSucceeded:
      recorder_->SetState(jobspec::JobState::kSucceeded);
      break;
    case Outcome::kFailed:
      recorder_->SetState(jobspec::JobState::kFailed, std::move(failure));
      break;
    case Outcome::kCancelled:
      recorder_->SetState(jobspec::JobState::kCancelled, CancelledError());
      break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

void ReplicaSet::OnExit(size_t index, ExitStatus status) {
  std::lock_guard<std::mutex> lock(mu_);
  Replica& replica = replicas_[index];
  replica.exit = status;
  replica.exit_sequence = ++exits_;
  replica.details.exit_status = status;
  recorder_->UpdateReplica(replica.details);
  cv_.notify_all();
}

}  // namespace trainpkg::sdk::internal
