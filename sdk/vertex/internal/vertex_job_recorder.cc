#include "sdk/vertex/internal/vertex_job_recorder.h"

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace trainpkg::sdk::vertex::internal {

VertexJobRecorder::VertexJobRecorder(JobStore store, VertexJobRecord where)
    : store_(std::move(store)), record_(std::move(where)) {}

absl::Status VertexJobRecorder::CreateRecord(const jobspec::CustomJob& job) {
  TP_ASSIGN_OR_RETURN(std::string id, VertexJobStoreId(job.name));
  record_.name = job.name;
  absl::Status created = store_.CreateJobDir(id);
  if (absl::IsAlreadyExists(created)) {
    // Recorded before (e.g. by another process following the same job)?
    absl::StatusOr<VertexJobRecord> existing = ReadVertexJobRecord(store_, id);
    if (!existing.ok() || *existing != record_) {
      return absl::AlreadyExistsError(
          absl::StrCat("job ", id, " in ", store_.home().string(), " is another job"));
    }
  } else if (!created.ok()) {
    return created;
  }
  TP_RETURN_IF_ERROR(WriteVertexJobRecord(store_, id, record_));
  id_ = std::move(id);
  return absl::OkStatus();
}

void VertexJobRecorder::Record(const jobspec::CustomJob& job, jobspec::JobState previous) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_) return;
  if (id_.empty()) {
    if (absl::Status status = CreateRecord(job); !status.ok()) {
      failed_ = true;
      TP_LOG(ERROR, "recording Vertex AI job {} in the job store: {}", job.name, status.ToString());
      return;
    }
  }
  absl::Status status = RecordVertexJobState(store_, id_, job, previous, absl::Now());
  if (!status.ok()) TP_LOG(ERROR, "updating the job store: {}", status.ToString());
}

std::filesystem::path VertexJobRecorder::job_dir() const {
  std::lock_guard<std::mutex> lock(mu_);
  return id_.empty() ? std::filesystem::path() : store_.JobDir(id_);
}

}  // namespace trainpkg::sdk::vertex::internal
