#include "sdk/hptune/tuning_job_store.h"

#include <algorithm>
#include <system_error>

#include "base/file_util.h"
#include "base/private_file.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk::hptune {

std::filesystem::path TuningJobStore::JobDir(std::string_view id) const {
  return home_ / "hptuning_jobs" / std::string(id);
}
std::filesystem::path TuningJobStore::JobFile(std::string_view id) const {
  return JobDir(id) / "job.json";
}
std::filesystem::path TuningJobStore::CancelRequestFile(std::string_view id) const {
  return JobDir(id) / "cancel_request";
}

absl::Status TuningJobStore::CreateJobDir(std::string_view id) const {
  TP_RETURN_IF_ERROR(MakeHomePrivate(home_));
  TP_RETURN_IF_ERROR(MakePrivateDir(JobDir(id).parent_path(), ExistingDir::kNarrow));
  absl::Status created = MakePrivateDir(JobDir(id), ExistingDir::kRefuse);
  if (absl::IsAlreadyExists(created)) {
    return absl::AlreadyExistsError(
        fmt::format("{}: a tuning job with id {} already exists", JobDir(id).string(), id));
  }
  return created;
}

absl::Status TuningJobStore::WriteJob(std::string_view id,
                                      const jobspec::HyperparameterTuningJob& job) const {
  return base::WriteFileAtomicPrivate(JobFile(id), jobspec::FormatHyperparameterTuningJobJson(job));
}

absl::StatusOr<jobspec::HyperparameterTuningJob> TuningJobStore::ReadJob(
    std::string_view id) const {
  if (!Exists(id)) {
    return absl::NotFoundError(
        fmt::format("no tuning job {} ({} does not exist)", id, JobFile(id).string()));
  }
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(JobFile(id)));
  absl::StatusOr<jobspec::HyperparameterTuningJob> job =
      jobspec::ParseHyperparameterTuningJobJson(text);
  if (!job.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", JobFile(id).string(), std::string(job.status().message())));
  }
  return job;
}

bool TuningJobStore::Exists(std::string_view id) const {
  std::error_code error;
  return !id.empty() && std::filesystem::is_regular_file(JobFile(id), error);
}

absl::StatusOr<std::vector<std::string>> TuningJobStore::ListJobIds() const {
  std::vector<std::string> ids;
  const std::filesystem::path root = home_ / "hptuning_jobs";
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) return ids;
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    const std::string id = entry.path().filename().string();
    if (Exists(id)) ids.push_back(id);
  }
  if (error) {
    return absl::PermissionDeniedError(
        fmt::format("{}: cannot list tuning jobs: {}", root.string(), error.message()));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

absl::Status TuningJobStore::RequestCancel(std::string_view id) const {
  if (!Exists(id)) {
    return absl::NotFoundError(
        fmt::format("no tuning job {} ({} does not exist)", id, JobFile(id).string()));
  }
  return base::WriteFileAtomicPrivate(CancelRequestFile(id), "");
}

bool TuningJobStore::CancelRequested(std::string_view id) const {
  std::error_code error;
  return std::filesystem::exists(CancelRequestFile(id), error);
}

}  // namespace trainpkg::sdk::hptune
