#include "sdk/job_client.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "sdk/backend_table.h"
#include "sdk/internal/recorded_job.h"

namespace trainpkg::sdk {

absl::StatusOr<std::vector<JobInfo>> JobClient::ListJobs() const {
  TP_ASSIGN_OR_RETURN(JobList list, ListJobs(JobListOptions{}));
  return std::move(list.jobs);
}

absl::StatusOr<JobList> JobClient::ListJobs(const JobListOptions& options) const {
  JobList list;
  TP_RETURN_IF_ERROR(store_.ForEachJobSummary(options.after, [&](const JobSummary& summary) {
    // A finished job's record no longer changes: its summary decides. One
    // that is not finished may be an orphan that reading repairs.
    const bool finished = jobspec::IsTerminal(summary.job.state);
    if (finished && options.matches && !options.matches(summary.job)) return true;
    if (finished && options.limit > 0 && list.jobs.size() == options.limit) {
      list.more = true;
      return false;
    }
    absl::StatusOr<JobInfo> info = GetJob(summary.id);
    // One unreadable record (damaged, or being replaced) does not hide the
    // others from the listing.
    if (!info.ok()) return true;
    if (options.matches && !options.matches(info->job)) return true;
    if (options.limit > 0 && list.jobs.size() == options.limit) {
      list.more = true;
      return false;
    }
    list.jobs.push_back(*std::move(info));
    return true;
  }));
  return list;
}

absl::StatusOr<JobInfo> JobClient::GetJob(std::string_view id) const {
  return internal::LoadAndRepairRecordedJob(RecordedJobDriver(store_, id), store_, id,
                                            /*cancelling=*/false);
}

absl::StatusOr<JobInfo> JobClient::ReadJob(std::string_view id) const {
  return internal::LoadRecordedJob(RecordedJobDriver(store_, id), store_, id);
}

absl::StatusOr<jobspec::CustomJob> JobClient::CancelJob(std::string_view id,
                                                        absl::Duration timeout) const {
  const BackendDriver& driver = RecordedJobDriver(store_, id);
  if (std::optional<RemotePlace> remote = driver.remote()) {
    TP_RETURN_IF_ERROR(store_.ReadJob(id).status());
    return absl::FailedPreconditionError(
        fmt::format("job {} runs on {}: cancel it through {} (trainpkg jobs cancel {})", id,
                    remote->platform, remote->source, id));
  }
  return internal::CancelSupervisedJob(driver, store_, id, timeout);
}

}  // namespace trainpkg::sdk
