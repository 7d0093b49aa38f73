#include "sdk/serve/local_job_service.h"

#include <algorithm>
#include <system_error>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/validation.h"
#include "sdk/serve/list_filter.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

RestReply Error(const absl::Status& status,
                const std::vector<vertex::FieldViolation>& violations = {}) {
  return RestReply{vertex::HttpStatusForCode(status.code()), vertex::ErrorJson(status, violations)};
}

std::string JobName(std::string_view project, std::string_view location, std::string_view id) {
  return fmt::format("projects/{}/locations/{}/customJobs/{}", project, location, id);
}

// Ids name directories: only what the job store generates or accepts.
bool ValidId(std::string_view id) {
  return !id.empty() && id.size() <= 128 && std::all_of(id.begin(), id.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The page token is the last job shown (its create time and id), not an
// offset: jobs created or deleted meanwhile shift no page, and the next page
// starts right after it in list order (ListsBefore: newest first, ties by id
// descending).
std::string EncodePageToken(const JobSummary& last) {
  std::string token;
  const int64_t nanos =
      last.job.create_time.has_value() ? absl::ToUnixNanos(*last.job.create_time) : 0;
  absl::WebSafeBase64Escape(fmt::format("{}/{}", nanos, last.id), &token);
  return token;
}

std::optional<JobSummary> DecodePageToken(std::string_view token) {
  std::string text;
  if (!absl::WebSafeBase64Unescape(std::string(token), &text)) return std::nullopt;
  size_t slash = text.find('/');
  int64_t nanos = 0;
  if (slash == std::string::npos || !absl::SimpleAtoi(text.substr(0, slash), &nanos)) {
    return std::nullopt;
  }
  JobSummary last{.id = text.substr(slash + 1), .job = {}};
  if (nanos != 0) last.job.create_time = absl::FromUnixNanos(nanos);
  return last;
}

}  // namespace

LocalJobService::LocalJobService(LocalJobServiceOptions options)
    : options_(std::move(options)), client_(JobStore(options_.home)) {}

LocalJobService::~LocalJobService() {
  std::map<std::string, CustomJob> running;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running.swap(running_);
  }
  for (auto& [id, job] : running) job.Cancel();
  for (auto& [id, job] : running) (void)job.Wait();
}

void LocalJobService::ReapFinished() {
  std::erase_if(running_,
                [](const auto& entry) { return jobspec::IsTerminal(entry.second.job().state); });
}

RestReply LocalJobService::CreateCustomJob(std::string_view project, std::string_view location,
                                           std::string_view body) {
  absl::StatusOr<jobspec::CustomJob> parsed = jobspec::ParseCustomJobJson(body);
  if (!parsed.ok()) return Error(parsed.status());
  jobspec::CustomJob job = *std::move(parsed);
  // Output-only fields are ignored, as on Vertex.
  job.name.clear();
  job.state = jobspec::JobState::kUnspecified;
  job.create_time = job.start_time = job.end_time = job.update_time = std::nullopt;
  job.error.reset();
  job.web_access_uris.clear();
  std::vector<vertex::FieldViolation> violations;
  for (const jobspec::ValidationIssue& issue : jobspec::CollectValidationIssues(job)) {
    violations.push_back({issue.field, issue.message});
  }
  vertex::FieldViolation refused;
  if (absl::Status allowed =
          CheckJobImages(job.job_spec, "jobSpec", options_.images, options_.home, refused);
      !allowed.ok()) {
    return Error(allowed, {refused});
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ReapFinished();
    // Jobs still starting count too: concurrent requests cannot all pass the
    // cap before the first of them is running.
    if (static_cast<int>(running_.size()) + starting_ >= options_.max_running_jobs) {
      return Error(absl::ResourceExhaustedError(
          fmt::format("{} jobs are running, the most this service runs at once (trainpkg serve "
                      "--max-running-jobs); retry when one has finished",
                      options_.max_running_jobs)));
    }
    ++starting_;
  }
  absl::Cleanup started = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    --starting_;
  };
  CustomJobOptions options;
  options.home = options_.home;
  options.project_id = std::string(project);
  options.location = std::string(location);
  options.environment = options_.environment;
  options.launcher = options_.launcher;
  options.cancel_grace_period = options_.cancel_grace_period;
  options.stream_replica_output = false;
  absl::StatusOr<CustomJob> created = CustomJob::Create(job, std::move(options));
  if (!created.ok()) return Error(created.status(), violations);
  if (absl::Status status = created->Submit(); !status.ok()) {
    // A missing or non-executable local: image is a problem of the request.
    if (status.code() == absl::StatusCode::kNotFound ||
        status.code() == absl::StatusCode::kPermissionDenied) {
      status = absl::InvalidArgumentError(status.message());
    }
    return Error(status);
  }
  jobspec::CustomJob current = created->job();
  std::lock_guard<std::mutex> lock(mu_);
  ReapFinished();
  running_.emplace(created->job_id(), *created);
  return RestReply{200, jobspec::CustomJobToJson(current)};
}

std::optional<RestReply> LocalJobService::Lookup(std::string_view project,
                                                 std::string_view location, std::string_view id,
                                                 jobspec::CustomJob& job) const {
  std::string name = JobName(project, location, id);
  absl::Status not_found = absl::NotFoundError(fmt::format("CustomJob {} not found", name));
  if (!ValidId(id)) return Error(not_found);
  absl::StatusOr<JobInfo> info = client_.GetJob(id);
  if (!info.ok()) {
    return Error(info.status().code() == absl::StatusCode::kNotFound ? not_found : info.status());
  }
  // Only under the project and location it was created in, as on Vertex.
  if (info->job.name != name) return Error(not_found);
  job = std::move(info->job);
  return std::nullopt;
}

RestReply LocalJobService::GetCustomJob(std::string_view project, std::string_view location,
                                        std::string_view id) {
  jobspec::CustomJob job;
  if (std::optional<RestReply> error = Lookup(project, location, id, job)) return *error;
  return RestReply{200, jobspec::CustomJobToJson(job)};
}

RestReply LocalJobService::ListCustomJobs(std::string_view project, std::string_view location,
                                          std::string_view filter_text,
                                          std::string_view page_size_text,
                                          std::string_view page_token) {
  absl::StatusOr<ListFilter> filter = ListFilter::Parse(filter_text);
  if (!filter.ok()) return Error(filter.status());
  int page_size = options_.default_page_size;
  if (!page_size_text.empty()) {
    if (!absl::SimpleAtoi(std::string(page_size_text), &page_size) || page_size < 0) {
      return Error(absl::InvalidArgumentError(fmt::format(
          "pageSize: \"{}\" is not a non-negative integer", std::string(page_size_text))));
    }
    if (page_size == 0) page_size = options_.default_page_size;
    page_size = std::min(page_size, options_.max_page_size);
  }
  std::optional<JobSummary> after;
  if (!page_token.empty()) {
    after = DecodePageToken(page_token);
    if (!after.has_value()) {
      return Error(absl::InvalidArgumentError(
          "pageToken: not a token this service returned (pass nextPageToken unchanged)"));
    }
  }
  const std::string prefix = fmt::format("projects/{}/locations/{}/customJobs/", project, location);
  JobListOptions options;
  // Only jobs created under this parent (their name is the parent's, then the id).
  options.matches = [&](const jobspec::CustomJob& job) {
    return job.name.starts_with(prefix) && job.name.size() > prefix.size() &&
           job.name.find('/', prefix.size()) == std::string::npos && filter->Matches(job);
  };
  options.limit = static_cast<size_t>(page_size);
  options.after = std::move(after);
  absl::StatusOr<JobList> jobs = client_.ListJobs(options);
  if (!jobs.ok()) return Error(jobs.status());
  nlohmann::json body = nlohmann::json::object();
  nlohmann::json list = nlohmann::json::array();
  for (const JobInfo& info : jobs->jobs) {
    list.push_back(jobspec::CustomJobToJson(info.job));
  }
  if (!list.empty()) body["customJobs"] = std::move(list);
  if (jobs->more && !jobs->jobs.empty()) {
    body["nextPageToken"] = EncodePageToken(SummaryOf(jobs->jobs.back().id, jobs->jobs.back().job));
  }
  return RestReply{200, std::move(body)};
}

RestReply LocalJobService::CancelCustomJob(std::string_view project, std::string_view location,
                                           std::string_view id) {
  jobspec::CustomJob job;
  if (std::optional<RestReply> error = Lookup(project, location, id, job)) return *error;
  if (jobspec::IsTerminal(job.state)) return RestReply{200, nlohmann::json::object()};
  std::optional<CustomJob> handle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = running_.find(std::string(id)); it != running_.end()) handle = it->second;
  }
  if (handle.has_value()) {
    handle->Cancel();
  } else {
    // A job another process supervises (`trainpkg run`): ask through the store.
    absl::StatusOr<jobspec::CustomJob> cancelled = client_.CancelJob(id, absl::ZeroDuration());
    // The request is filed; as on Vertex, cancel returns before the job has
    // stopped, so not being terminal yet is no error.
    if (!cancelled.ok() && cancelled.status().code() != absl::StatusCode::kDeadlineExceeded) {
      return Error(cancelled.status());
    }
  }
  return RestReply{200, nlohmann::json::object()};
}

RestReply LocalJobService::DeleteCustomJob(std::string_view project, std::string_view location,
                                           std::string_view id) {
  jobspec::CustomJob job;
  if (std::optional<RestReply> error = Lookup(project, location, id, job)) return *error;
  if (!jobspec::IsTerminal(job.state)) {
    return Error(absl::FailedPreconditionError(
        fmt::format("CustomJob {} is {}; cancel it and wait until it is terminal before deleting",
                    job.name, jobspec::JobStateName(job.state))));
  }
  int operation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_.erase(std::string(id));
    operation = ++operations_;
  }
  if (absl::Status removed = client_.store().RemoveJob(id); !removed.ok()) return Error(removed);
  std::string now = jobspec::FormatTimestamp(absl::Now());
  // Vertex answers a delete with a long-running operation; this one is
  // already done, so clients that wait on it return at once.
  return RestReply{
      200,
      {{"name",
        fmt::format("projects/{}/locations/{}/operations/{}", project, location, operation)},
       {"metadata",
        {{"@type", "type.googleapis.com/google.cloud.aiplatform.v1.DeleteOperationMetadata"},
         {"genericMetadata", {{"createTime", now}, {"updateTime", now}}}}},
       {"done", true},
       {"response", {{"@type", "type.googleapis.com/google.protobuf.Empty"}}}}};
}

}  // namespace trainpkg::sdk::serve
