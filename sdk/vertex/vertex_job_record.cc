#include "sdk/vertex/vertex_job_record.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/private_file.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/job_state.h"
#include "nlohmann/json.hpp"
#include "sdk/internal/remote_job_recorder.h"

namespace trainpkg::sdk::vertex {
namespace {

constexpr std::pair<const char*, std::string VertexJobRecord::*> kFields[] = {
    {"endpoint", &VertexJobRecord::endpoint},
    {"project", &VertexJobRecord::project},
    {"location", &VertexJobRecord::location},
    {"name", &VertexJobRecord::name}};

}  // namespace

std::string FormatVertexJobRecord(const VertexJobRecord& record) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [key, field] : kFields) json[key] = record.*field;
  return json.dump(2) + "\n";
}

absl::StatusOr<VertexJobRecord> ParseVertexJobRecord(std::string_view text) {
  nlohmann::json json = base::ParseJson(text).value_or(nlohmann::json::value_t::discarded);
  if (!json.is_object()) return absl::InvalidArgumentError("not a JSON object");
  VertexJobRecord record;
  for (const auto& [key, field] : kFields) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_string() || it->get<std::string>().empty()) {
      return absl::InvalidArgumentError(fmt::format("{}: a non-empty string is required", key));
    }
    record.*field = it->get<std::string>();
  }
  return record;
}

absl::StatusOr<std::string> VertexJobStoreId(std::string_view name) {
  std::vector<std::string> parts = absl::StrSplit(std::string(name), '/');
  const std::string& id = parts.back();
  // The id names a directory of the job store: a reply naming "." or ".."
  // must not write outside the job's own.
  if (parts.size() < 2 || id.empty() || id == "." || id == "..") {
    return absl::InvalidArgumentError(fmt::format("no job id in resource name \"{}\"", name));
  }
  return id;
}

std::filesystem::path VertexJobRecordFile(const JobStore& store, std::string_view id) {
  return store.JobDir(id) / "vertex.json";
}

absl::Status WriteVertexJobRecord(const JobStore& store, std::string_view id,
                                  const VertexJobRecord& record) {
  return base::WriteFileAtomicPrivate(VertexJobRecordFile(store, id),
                                      FormatVertexJobRecord(record));
}

absl::StatusOr<VertexJobRecord> ReadVertexJobRecord(const JobStore& store, std::string_view id) {
  const std::filesystem::path file = VertexJobRecordFile(store, id);
  absl::StatusOr<std::string> text = base::ReadFile(file);
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(fmt::format("job {} is not a Vertex AI job", id));
  }
  if (!text.ok()) return text.status();
  absl::StatusOr<VertexJobRecord> record = ParseVertexJobRecord(*text);
  if (!record.ok()) {
    return absl::DataLossError(absl::StrCat(file.string(), ": ", record.status().message()));
  }
  return record;
}

absl::Status RecordVertexJobState(const JobStore& store, std::string_view id,
                                  const jobspec::CustomJob& job, jobspec::JobState previous,
                                  absl::Time now) {
  return sdk::internal::RecordRemoteJobState(store, id, job, previous, now);
}

absl::StatusOr<jobspec::CustomJob> RefreshRecordedVertexJob(const JobStore& store,
                                                            std::string_view id,
                                                            VertexClient& client) {
  TP_ASSIGN_OR_RETURN(VertexJobRecord record, ReadVertexJobRecord(store, id));
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob recorded, store.ReadJob(id));
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob job, client.GetCustomJob(record.name));
  TP_RETURN_IF_ERROR(RecordVertexJobState(store, id, job, recorded.state, absl::Now()));
  return job;
}

absl::StatusOr<jobspec::CustomJob> CancelRecordedVertexJob(const JobStore& store,
                                                           std::string_view id,
                                                           VertexClient& client,
                                                           absl::Duration timeout,
                                                           absl::Duration poll_interval) {
  TP_ASSIGN_OR_RETURN(VertexJobRecord record, ReadVertexJobRecord(store, id));
  TP_ASSIGN_OR_RETURN(jobspec::CustomJob job, store.ReadJob(id));
  if (jobspec::IsTerminal(job.state)) return job;
  TP_RETURN_IF_ERROR(client.CancelCustomJob(record.name));
  const absl::Time deadline = absl::Now() + timeout;
  for (;;) {
    TP_ASSIGN_OR_RETURN(job, RefreshRecordedVertexJob(store, id, client));
    if (jobspec::IsTerminal(job.state)) return job;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(fmt::format("job {} is still {} after {}", id,
                                                     jobspec::JobStateName(job.state),
                                                     absl::FormatDuration(timeout)));
    }
    absl::SleepFor(poll_interval);
  }
}

}  // namespace trainpkg::sdk::vertex
