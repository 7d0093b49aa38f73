#include "sdk/serve/local_tuning_job_service.h"

#include <algorithm>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/json_parse.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

RestReply ErrorReply(const absl::Status& status,
                const std::vector<vertex::FieldViolation>& violations = {}) {
  return RestReply{vertex::HttpStatusForCode(status.code()), vertex::ErrorJson(status, violations)};
}

std::string Parent(std::string_view project, std::string_view location) {
  return fmt::format("projects/{}/locations/{}/hyperparameterTuningJobs/", project, location);
}

}  // namespace

LocalTuningJobService::LocalTuningJobService(LocalTuningJobServiceOptions options)
    : options_(std::move(options)) {}

LocalTuningJobService::~LocalTuningJobService() {
  std::map<std::string, HyperparameterTuningJob> running;
  {
    std::lock_guard lock(mu_);
    running.swap(running_);
  }
  for (auto& [id, job] : running) job.Cancel();
  for (auto& [id, job] : running) (void)job.Wait();
}

void LocalTuningJobService::ReapFinished() {
  std::erase_if(running_,
                [](const auto& entry) { return jobspec::IsTerminal(entry.second.job().state); });
}

RestReply LocalTuningJobService::Create(std::string_view project, std::string_view location,
                                        std::string_view body) {
  absl::StatusOr<nlohmann::json> parsed = base::ParseJson(body);
  if (!parsed.ok()) {
    return ErrorReply(absl::InvalidArgumentError(
        absl::StrCat("the request body is not valid JSON: ", parsed.status().message())));
  }
  const nlohmann::json& json = *parsed;
  absl::StatusOr<jobspec::HyperparameterTuningJob> spec =
      jobspec::HyperparameterTuningJobFromJson(json);
  if (!spec.ok()) return ErrorReply(spec.status());
  // Output only, as on Vertex: the service makes the trials.
  spec->trials.clear();
  vertex::FieldViolation refused;
  if (absl::Status allowed = CheckJobImages(spec->trial_job_spec, "trialJobSpec", options_.images,
                                            options_.home, refused);
      !allowed.ok()) {
    return ErrorReply(allowed, {refused});
  }
  {
    std::lock_guard lock(mu_);
    ReapFinished();
    if (static_cast<int>(running_.size()) + starting_ >= options_.max_running_jobs) {
      return ErrorReply(absl::ResourceExhaustedError(fmt::format(
          "{} hyperparameter tuning jobs are running, the most this service runs at once "
          "(trainpkg serve --max-running-jobs); retry when one has finished",
          options_.max_running_jobs)));
    }
    ++starting_;
  }
  absl::Cleanup started = [this] {
    std::lock_guard lock(mu_);
    --starting_;
  };
  HyperparameterTuningJobOptions options;
  options.trial_options.home = options_.home;
  options.trial_options.environment = options_.environment;
  options.trial_options.launcher = options_.launcher;
  options.trial_options.cancel_grace_period = options_.cancel_grace_period;
  options.trial_options.project_id = std::string(project);
  options.trial_options.location = std::string(location);
  options.poll_interval = options_.poll_interval;
  absl::StatusOr<HyperparameterTuningJob> job =
      HyperparameterTuningJob::Create(*std::move(spec), std::move(options));
  if (!job.ok()) return ErrorReply(job.status());
  if (absl::Status status = job->Submit(); !status.ok()) return ErrorReply(status);
  const jobspec::HyperparameterTuningJob created = job->job();
  std::lock_guard lock(mu_);
  ReapFinished();
  running_.emplace(job->job_id(), *job);
  return RestReply{200, jobspec::HyperparameterTuningJobToJson(created)};
}

RestReply LocalTuningJobService::Get(std::string_view project, std::string_view location,
                                     std::string_view id) {
  const hptune::TuningJobStore store(options_.home);
  absl::StatusOr<jobspec::HyperparameterTuningJob> job = store.ReadJob(id);
  if (!job.ok() || job->name != Parent(project, location) + std::string(id)) {
    return ErrorReply(absl::NotFoundError(
        fmt::format("HyperparameterTuningJob {}{} not found", Parent(project, location), id)));
  }
  return RestReply{200, jobspec::HyperparameterTuningJobToJson(*job)};
}

RestReply LocalTuningJobService::List(std::string_view project, std::string_view location) {
  const hptune::TuningJobStore store(options_.home);
  absl::StatusOr<std::vector<std::string>> ids = store.ListJobIds();
  if (!ids.ok()) return ErrorReply(ids.status());
  std::vector<jobspec::HyperparameterTuningJob> jobs;
  for (const std::string& id : *ids) {
    absl::StatusOr<jobspec::HyperparameterTuningJob> job = store.ReadJob(id);
    if (job.ok() && job->name == Parent(project, location) + id) jobs.push_back(*std::move(job));
  }
  std::sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) {
    return a.create_time.value_or(absl::InfinitePast()) >
           b.create_time.value_or(absl::InfinitePast());
  });
  nlohmann::json list = nlohmann::json::array();
  for (const auto& job : jobs) list.push_back(jobspec::HyperparameterTuningJobToJson(job));
  nlohmann::json body = nlohmann::json::object();
  if (!list.empty()) body["hyperparameterTuningJobs"] = std::move(list);
  return RestReply{200, std::move(body)};
}

RestReply LocalTuningJobService::Cancel(std::string_view project, std::string_view location,
                                        std::string_view id) {
  RestReply found = Get(project, location, id);
  if (found.status != 200) return found;
  const hptune::TuningJobStore store(options_.home);
  // Through the store, which the tuning job polls: it may run in this
  // process or in another.
  if (absl::Status status = store.RequestCancel(id); !status.ok()) return ErrorReply(status);
  return RestReply{200, nlohmann::json::object()};
}

}  // namespace trainpkg::sdk::serve
