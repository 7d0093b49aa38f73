#include "sdk/job_client.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <system_error>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/bounded_file.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/job_state.h"
#include "sdk/internal/proc_stat.h"
#include "sdk/internal/runc_container_launcher.h"
#include "sdk/slurm/internal/recorded_job_cancel.h"
#include "sdk/slurm/internal/slurm_job_files.h"

namespace trainpkg::sdk {
namespace {

constexpr int kCodeCancelled = 1;
constexpr int kCodeInternal = 13;
constexpr auto kCancelPollInterval = std::chrono::milliseconds(50);

absl::StatusOr<JobInfo> LoadJob(const JobStore& store, std::string_view id) {
  JobInfo info;
  info.id = std::string(id);
  info.job_dir = store.JobDir(id);
  TP_ASSIGN_OR_RETURN(info.job, store.ReadJob(id));
  absl::StatusOr<vertex::VertexJobRecord> vertex = vertex::ReadVertexJobRecord(store, id);
  if (vertex.ok()) {
    info.backend = "vertex";
    info.vertex = *std::move(vertex);
    return info;
  }
  absl::StatusOr<k8s::K8sJobRecord> k8s = k8s::ReadK8sJobRecord(store, id);
  if (k8s.ok()) {
    info.backend = "k8s";
    info.k8s = *std::move(k8s);
    return info;
  }
  std::error_code ec;
  info.backend = std::filesystem::exists(info.job_dir / "slurm", ec) ? "slurm" : "local";
  if (info.backend == "slurm") {
    absl::StatusOr<std::string> slurm_id = base::ReadRegularFile(
        slurm::internal::SlurmJobFiles(info.job_dir).slurm_job_id(),
        base::BoundedReadOptions{.max_bytes = 64, .what = "a Slurm job id file"});
    if (slurm_id.ok()) info.slurm_job_id = std::string(absl::StripAsciiWhitespace(*slurm_id));
  }
  absl::StatusOr<LocalJobDetails> local = store.ReadLocalDetails(id);
  if (!local.ok()) return info;
  info.local = *std::move(local);
  info.supervisor_running =
      internal::IsProcessAlive(info.local.supervisor.pid, info.local.supervisor.start_time);
  return info;
}

// True for a job that will never finish: not terminal, and the supervisor
// that would finish it is gone.
bool Orphaned(const JobInfo& info) {
  return !jobspec::IsTerminal(info.job.state) && !info.supervisor_running &&
         info.local.supervisor.pid != 0;
}

// Kills what is left of each replica's process group, and deletes each
// container-mode replica's runc container (its processes are in a session
// of their own, so killing runc's group does not stop them) and bundle.
// True when some replica had not finished.
bool KillLeftovers(const JobStore& store, std::string_view id, const LocalJobDetails& local) {
  bool running = false;
  for (const ReplicaDetails& replica : local.replicas) {
    if (replica.pgid <= 0) continue;
    running = running || !replica.exit_status.has_value();
    internal::SignalProcessGroup(replica.pgid, replica.start_time, SIGKILL);
    if (!replica.container_id.empty()) {
      internal::DeleteRuncContainer(
          *DefaultProcessLauncher(),
          internal::RuncContainer{.id = replica.container_id,
                                  .bundle_dir = store.ContainerBundleDir(id, replica.name),
                                  .env = base::SnapshotProcessEnvironment()});
    }
  }
  return running;
}

// Finishes an orphaned job: CANCELLED when it was being cancelled and
// replicas were running, else FAILED.
absl::Status Repair(const JobStore& store, JobInfo& info, bool cancelling) {
  bool was_running = KillLeftovers(store, info.id, info.local);
  // A Slurm job runs on without its supervisor: scancel it too.
  if (slurm::internal::CancelRecordedSlurmJob(info.job_dir)) was_running = true;
  absl::Time now = absl::Now();
  if (cancelling && was_running) {
    info.job.state = jobspec::JobState::kCancelled;
    info.job.error = jobspec::RpcStatus{.code = kCodeCancelled, .message = "CANCELLED"};
  } else {
    info.job.state = jobspec::JobState::kFailed;
    info.job.error = jobspec::RpcStatus{
        .code = kCodeInternal,
        .message = absl::StrCat("The job supervisor (pid ", info.local.supervisor.pid,
                                ") exited before the job finished")};
  }
  info.job.update_time = now;
  info.job.end_time = now;
  TP_RETURN_IF_ERROR(store.WriteJob(info.id, info.job));
  return store.AppendHistory(info.id, HistoryEntry{.state = info.job.state, .time = now});
}

// Loads the job and repairs it when orphaned. The supervisor records the
// terminal state before it exits, so the job is read again once the
// supervisor is seen gone.
absl::StatusOr<JobInfo> LoadAndRepair(const JobStore& store, std::string_view id, bool cancelling) {
  TP_ASSIGN_OR_RETURN(JobInfo info, LoadJob(store, id));
  if (!Orphaned(info)) return info;
  TP_ASSIGN_OR_RETURN(info, LoadJob(store, id));
  if (Orphaned(info)) TP_RETURN_IF_ERROR(Repair(store, info, cancelling));
  return info;
}

}  // namespace

absl::StatusOr<std::vector<JobInfo>> JobClient::ListJobs() const {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> ids, store_.ListJobIds());
  std::vector<JobInfo> jobs;
  for (const std::string& id : ids) {
    absl::StatusOr<JobInfo> info = LoadAndRepair(store_, id, /*cancelling=*/false);
    if (info.ok()) jobs.push_back(*std::move(info));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobInfo& a, const JobInfo& b) {
    return a.job.create_time.value_or(absl::InfinitePast()) >
           b.job.create_time.value_or(absl::InfinitePast());
  });
  return jobs;
}

absl::StatusOr<JobInfo> JobClient::GetJob(std::string_view id) const {
  return LoadAndRepair(store_, id, /*cancelling=*/false);
}

absl::StatusOr<jobspec::CustomJob> JobClient::CancelJob(std::string_view id,
                                                        absl::Duration timeout) const {
  TP_ASSIGN_OR_RETURN(JobInfo info, LoadJob(store_, id));
  if (info.vertex.has_value()) {
    return absl::FailedPreconditionError(
        fmt::format("job {} runs on Vertex AI: cancel it through the service", id));
  }
  if (info.k8s.has_value()) {
    return absl::FailedPreconditionError(
        fmt::format("job {} runs on Kubernetes: cancel it through the API server", id));
  }
  if (jobspec::IsTerminal(info.job.state)) return info.job;
  TP_RETURN_IF_ERROR(store_.RequestCancel(id));
  absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    TP_ASSIGN_OR_RETURN(info, LoadAndRepair(store_, id, /*cancelling=*/true));
    if (jobspec::IsTerminal(info.job.state)) return info.job;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(fmt::format("job {} is still {} after {}", id,
                                                     jobspec::JobStateName(info.job.state),
                                                     absl::FormatDuration(timeout)));
    }
    std::this_thread::sleep_for(kCancelPollInterval);
  }
}

}  // namespace trainpkg::sdk
