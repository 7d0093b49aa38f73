#include "sdk/job_client.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/job_state.h"
#include "sdk/backend_table.h"
#include "sdk/internal/job_errors.h"

namespace trainpkg::sdk {
namespace {

constexpr auto kCancelPollInterval = std::chrono::milliseconds(50);

// The job and its backend's part of the record, whichever backend claims it
// (sdk/backend_table.h).
absl::StatusOr<JobInfo> LoadJob(const JobStore& store, std::string_view id) {
  JobInfo info;
  info.id = std::string(id);
  info.job_dir = store.JobDir(id);
  TP_ASSIGN_OR_RETURN(info.job, store.ReadJob(id));
  const BackendDriver& driver = RecordedJobDriver(store, id);
  info.backend = std::string(driver.name());
  TP_RETURN_IF_ERROR(driver.ReadRecord(store, info));
  return info;
}

// True for a job that will never finish: not terminal, and the supervisor
// that would finish it is gone.
bool Orphaned(const JobInfo& info) {
  return !jobspec::IsTerminal(info.job.state) && !info.supervisor_running &&
         info.local.supervisor.pid != 0;
}

// Finishes an orphaned job: CANCELLED when it was being cancelled and
// replicas were running, else FAILED.
absl::Status Repair(const JobStore& store, JobInfo& info, bool cancelling) {
  const bool was_running = JobDriver(info).StopOrphan(store, info);
  absl::Time now = absl::Now();
  if (cancelling && was_running) {
    info.job.state = jobspec::JobState::kCancelled;
    info.job.error = internal::CancelledError();
  } else {
    info.job.state = jobspec::JobState::kFailed;
    info.job.error = jobspec::RpcStatus{
        .code = internal::kCodeInternal,
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

absl::StatusOr<JobInfo> JobClient::ReadJob(std::string_view id) const {
  return LoadJob(store_, id);
}

absl::StatusOr<jobspec::CustomJob> JobClient::CancelJob(std::string_view id,
                                                        absl::Duration timeout) const {
  TP_ASSIGN_OR_RETURN(JobInfo info, LoadJob(store_, id));
  if (std::optional<RemotePlace> remote = JobDriver(info).remote()) {
    return absl::FailedPreconditionError(
        fmt::format("job {} runs on {}: cancel it through {} (trainpkg jobs cancel {})", id,
                    remote->platform, remote->source, id));
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
