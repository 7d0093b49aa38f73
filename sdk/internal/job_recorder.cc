#include "sdk/internal/job_recorder.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/job_state.h"
#include "sdk/internal/proc_stat.h"

namespace trainpkg::sdk::internal {
namespace {

void LogIfError(const absl::Status& status) {
  if (!status.ok()) TP_LOG(ERROR, "updating the job store: {}", status.ToString());
}

}  // namespace

JobRecorder::JobRecorder(JobStore store, std::string id, jobspec::CustomJob job, LineStream* log,
                         base::Clock& clock)
    : store_(std::move(store)),
      id_(std::move(id)),
      log_(log),
      clock_(clock),
      job_(std::move(job)) {}

absl::Status JobRecorder::Create() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Time now = clock_.Now();
  job_.state = jobspec::JobState::kQueued;
  job_.create_time = now;
  job_.update_time = now;
  // The pid with its start time: a reader tells a live supervisor from a
  // later process that got the same pid.
  local_.supervisor.pid = ::getpid();
  TP_ASSIGN_OR_RETURN(ProcStat self, ReadProcStat(::getpid()));
  local_.supervisor.start_time = self.start_time;
  // local.json before job.json: once a job is listed (it has a job.json) its
  // supervisor is on record, so a reader can tell whether it still runs.
  TP_RETURN_IF_ERROR(store_.WriteLocalDetails(id_, local_));
  TP_RETURN_IF_ERROR(store_.WriteJob(id_, job_));
  return store_.AppendHistory(id_, HistoryEntry{.state = job_.state, .time = now});
}

void JobRecorder::SetState(jobspec::JobState state, std::optional<jobspec::RpcStatus> error) {
  std::lock_guard<std::mutex> lock(mu_);
  // A terminal state is final: a replica event that arrives after a cancel
  // cannot reopen the job.
  if (jobspec::IsTerminal(job_.state) || job_.state == state) return;
  absl::Time now = clock_.Now();
  job_.state = state;
  job_.update_time = now;
  if (state == jobspec::JobState::kRunning) job_.start_time = now;
  if (jobspec::IsTerminal(state)) job_.end_time = now;
  if (error.has_value()) job_.error = std::move(error);
  // Logged, not returned: the job goes on even if the store cannot be updated.
  LogIfError(store_.WriteJob(id_, job_));
  LogIfError(store_.AppendHistory(id_, HistoryEntry{.state = state, .time = now}));
  if (log_ == nullptr) return;
  log_->WriteLine(
      "", fmt::format("CustomJob {} current state:\n{}", job_.name, jobspec::JobStateName(state)));
  if (state == jobspec::JobState::kSucceeded) {
    log_->WriteLine("", absl::StrCat("CustomJob run completed. Resource name: ", job_.name));
  } else if (jobspec::IsTerminal(state) && job_.error.has_value()) {
    log_->WriteLine("", absl::StrCat("Job failed with:\ncode: ", job_.error->code, "\nmessage: \"",
                                     job_.error->message, "\""));
  }
}

void JobRecorder::UpdateReplica(const ReplicaDetails& replica) {
  UpdateReplicas(std::span<const ReplicaDetails>(&replica, 1));
}

void JobRecorder::UpdateReplicas(std::span<const ReplicaDetails> replicas) {
  if (replicas.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (const ReplicaDetails& replica : replicas) {
    auto it = std::find_if(local_.replicas.begin(), local_.replicas.end(),
                           [&](const ReplicaDetails& r) { return r.name == replica.name; });
    if (it == local_.replicas.end()) {
      local_.replicas.push_back(replica);
    } else {
      *it = replica;
    }
  }
  LogIfError(store_.WriteLocalDetails(id_, local_));
}

jobspec::CustomJob JobRecorder::job() const {
  std::lock_guard<std::mutex> lock(mu_);
  return job_;
}

}  // namespace trainpkg::sdk::internal
