#include "sdk/job_client.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "sdk/backend_table.h"
#include "sdk/internal/recorded_job.h"

namespace trainpkg::sdk {

absl::StatusOr<std::vector<JobInfo>> JobClient::ListJobs() const {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> ids, store_.ListJobIds());
  std::vector<JobInfo> jobs;
  for (const std::string& id : ids) {
    absl::StatusOr<JobInfo> info = GetJob(id);
    // One unreadable record (damaged, or being replaced) does not hide the
    // others from the listing.
    if (info.ok()) jobs.push_back(*std::move(info));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobInfo& a, const JobInfo& b) {
    return a.job.create_time.value_or(absl::InfinitePast()) >
           b.job.create_time.value_or(absl::InfinitePast());
  });
  return jobs;
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
