#include "sdk/internal/remote_job_recorder.h"

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace trainpkg::sdk::internal {

absl::Status RecordRemoteJobState(const JobStore& store, std::string_view id,
                                  const jobspec::CustomJob& job, jobspec::JobState previous,
                                  absl::Time now) {
  TP_RETURN_IF_ERROR(store.WriteJob(id, job));
  // A poll that sees the same state refreshes job.json but adds no history line.
  if (job.state == previous) return absl::OkStatus();
  return store.AppendHistory(id, HistoryEntry{.state = job.state, .time = now});
}

RemoteJobRecorder::RemoteJobRecorder(JobStore store, RemoteJobRecordHooks hooks)
    : store_(std::move(store)), hooks_(std::move(hooks)) {}

absl::Status RemoteJobRecorder::CreateRecord(const jobspec::CustomJob& job) {
  TP_ASSIGN_OR_RETURN(std::string id, hooks_.id(job));
  absl::Status created = store_.CreateJobDir(id);
  if (absl::IsAlreadyExists(created)) {
    // Recorded before (e.g. by another process following the same job)?
    if (!hooks_.is_this_job(store_, id, job)) {
      return absl::AlreadyExistsError(
          absl::StrCat("job ", id, " in ", store_.home().string(), " is another job"));
    }
  } else if (!created.ok()) {
    return created;
  }
  TP_RETURN_IF_ERROR(hooks_.write(store_, id, job));
  id_ = std::move(id);
  return absl::OkStatus();
}

void RemoteJobRecorder::Record(const jobspec::CustomJob& job, jobspec::JobState previous) {
  std::lock_guard<std::mutex> lock(mu_);
  // After a failed creation the recorder stays quiet: one error, not one per poll.
  if (failed_) return;
  if (id_.empty()) {
    if (absl::Status status = CreateRecord(job); !status.ok()) {
      failed_ = true;
      TP_LOG(ERROR, "recording job {} in the job store: {}", job.name, status.ToString());
      return;
    }
  }
  absl::Status status = RecordRemoteJobState(store_, id_, job, previous, absl::Now());
  if (!status.ok()) TP_LOG(ERROR, "updating the job store: {}", status.ToString());
}

std::filesystem::path RemoteJobRecorder::job_dir() const {
  std::lock_guard<std::mutex> lock(mu_);
  return id_.empty() ? std::filesystem::path() : store_.JobDir(id_);
}

}  // namespace trainpkg::sdk::internal
