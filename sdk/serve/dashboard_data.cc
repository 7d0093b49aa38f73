#include "sdk/serve/dashboard_data.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "jobspec/cluster_env.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "jobspec/job_secret.h"
#include "jobspec/job_state.h"
#include "sdk/hptune/metric_file.h"
#include "sdk/hptune/results_table.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/serve/list_filter.h"
#include "sdk/serve/scalar_event_reader.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

RestReply DashboardError(const absl::Status& status) {
  return RestReply{vertex::HttpStatusForCode(status.code()), vertex::ErrorJson(status)};
}

std::string TimeText(const std::optional<absl::Time>& time) {
  return time.has_value() ? absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", *time, absl::UTCTimeZone())
                          : std::string();
}

// "projects/P/locations/L/<collection>/ID" -> P; "" when not of that form.
std::string ProjectOf(std::string_view name) {
  std::vector<std::string> parts = absl::StrSplit(std::string(name), '/');
  return parts.size() == 6 && parts[0] == "projects" ? std::string(parts[1]) : std::string();
}

// A local path for a baseOutputDirectory ("/dir/" or "file:///dir/"); nullopt
// for gs:// and relative paths, which this machine cannot read.
std::optional<std::filesystem::path> LocalDir(std::string_view uri) {
  if (uri.starts_with("file://")) uri.remove_prefix(7);
  if (!uri.starts_with("/")) return std::nullopt;
  return std::filesystem::path(uri);
}

// The value of `name` in the job's first worker pool's env; "" when unset.
std::string PoolEnv(const jobspec::CustomJob& job, std::string_view name) {
  if (job.job_spec.worker_pool_specs.empty()) return "";
  const jobspec::WorkerPoolSpec& pool = job.job_spec.worker_pool_specs[0];
  const std::vector<jobspec::EnvVar>* env = nullptr;
  if (pool.container_spec.has_value()) env = &pool.container_spec->env;
  if (pool.python_package_spec.has_value()) env = &pool.python_package_spec->env;
  if (env == nullptr) return "";
  for (const jobspec::EnvVar& var : *env) {
    if (var.name == name) return var.value;
  }
  return "";
}

// The cluster env of every replica, remade from the record as
// sdk/local/internal/launch_plan.cc makes it; empty when the record does not
// name every replica's address.
nlohmann::json ClusterEnvs(const JobInfo& info) {
  const jobspec::CustomJobSpec& spec = info.job.job_spec;
  std::vector<std::vector<std::string>> addresses(spec.worker_pool_specs.size());
  std::vector<jobspec::ReplicaRef> refs;
  for (size_t p = 0; p < spec.worker_pool_specs.size(); ++p) {
    for (int64_t i = 0; i < spec.worker_pool_specs[p].replica_count; ++i) {
      jobspec::ReplicaRef ref{.pool = static_cast<int>(p), .index = i};
      auto it = std::find_if(info.local.replicas.begin(), info.local.replicas.end(),
                             [&](const ReplicaDetails& r) { return r.name == ref.Name(); });
      if (it == info.local.replicas.end() || it->address.empty()) return nlohmann::json::object();
      addresses[p].push_back(it->address);
      refs.push_back(ref);
    }
  }
  nlohmann::json envs = nlohmann::json::object();
  for (const jobspec::ReplicaRef& ref : refs) {
    absl::StatusOr<std::map<std::string, std::string>> env =
        jobspec::MakeClusterEnv({.spec = spec,
                                 .job_id = info.id,
                                 .project_id = ProjectOf(info.job.name),
                                 .trial_id = "",
                                 .addresses = addresses,
                                 .replica = ref,
                                 .job_secret = ""});
    if (!env.ok()) return nlohmann::json::object();
    env->erase(jobspec::kJobSecretEnv);
    envs[ref.Name()] = *env;
  }
  return envs;
}

void AddPoints(nlohmann::json& scalars, const std::string& tag, int64_t step, double value,
               double wall_time) {
  scalars[tag].push_back(nlohmann::json::array({step, value, wall_time}));
}

}  // namespace

RestReply DashboardJobs(const JobClient& client, std::string_view filter_text,
                        std::string_view page_size_text, std::string_view page_text) {
  absl::StatusOr<ListFilter> filter = ListFilter::Parse(filter_text);
  if (!filter.ok()) return DashboardError(filter.status());
  int page_size = 50;
  int page = 0;
  if (!page_size_text.empty() && (!absl::SimpleAtoi(std::string(page_size_text), &page_size) ||
                                  page_size < 1 || page_size > 500)) {
    return DashboardError(absl::InvalidArgumentError(
        fmt::format("pageSize \"{}\": give a number from 1 to 500", std::string(page_size_text))));
  }
  if (!page_text.empty() && (!absl::SimpleAtoi(std::string(page_text), &page) || page < 0)) {
    return DashboardError(absl::InvalidArgumentError(
        fmt::format("page \"{}\": give a page number from 0", std::string(page_text))));
  }
  absl::StatusOr<std::vector<JobInfo>> jobs = client.ListJobs();
  if (!jobs.ok()) return DashboardError(jobs.status());
  nlohmann::json list = nlohmann::json::array();
  int total = 0;
  for (const JobInfo& info : *jobs) {  // newest first
    if (!filter->Matches(info.job)) continue;
    const int index = total++;
    if (index / page_size != page) continue;
    nlohmann::json row = {{"id", info.id},
                          {"displayName", info.job.display_name},
                          {"state", std::string(jobspec::JobStateName(info.job.state))},
                          {"backend", info.backend},
                          {"createTime", TimeText(info.job.create_time)},
                          {"startTime", TimeText(info.job.start_time)},
                          {"endTime", TimeText(info.job.end_time)}};
    if (info.job.error.has_value()) row["error"] = info.job.error->message;
    list.push_back(std::move(row));
  }
  return RestReply{
      200, {{"jobs", std::move(list)}, {"total", total}, {"page", page}, {"pageSize", page_size}}};
}

RestReply DashboardJob(const JobClient& client, std::string_view id) {
  absl::StatusOr<JobInfo> info = client.GetJob(id);
  if (!info.ok()) return DashboardError(info.status());
  nlohmann::json replicas = nlohmann::json::array();
  nlohmann::json logs = nlohmann::json::array();
  const bool terminal = jobspec::IsTerminal(info->job.state);
  for (const ReplicaDetails& replica : info->local.replicas) {
    nlohmann::json row = {{"name", replica.name},
                          {"pid", replica.pid},
                          {"address", replica.address},
                          {"argv", replica.argv},
                          {"container", replica.container_id},
                          {"restarts", replica.restarts}};
    std::vector<std::string> parts = absl::StrSplit(replica.name, '-');
    int pool = 0;
    int64_t index = 0;
    if (parts.size() == 2 && parts[0].starts_with("workerpool") &&
        absl::SimpleAtoi(parts[0].substr(10), &pool) && absl::SimpleAtoi(parts[1], &index)) {
      row["pool"] = pool;
      row["index"] = index;
    }
    if (replica.exit_status.has_value()) {
      row["state"] = "EXITED";
      row["exitCode"] = replica.exit_status->code;
      row["signal"] = replica.exit_status->signal;
    } else {
      row["state"] = replica.pid > 0 && !terminal ? "RUNNING" : "NOT_STARTED";
    }
    replicas.push_back(std::move(row));
  }
  std::error_code error;
  for (std::filesystem::directory_iterator it(client.store().LogDir(info->id), error), end;
       !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".log") logs.push_back(it->path().stem().string());
  }
  std::sort(logs.begin(), logs.end());
  nlohmann::json body = {{"id", info->id},
                         {"backend", info->backend},
                         {"job", jobspec::CustomJobToJson(info->job)},
                         {"replicas", std::move(replicas)},
                         {"clusterEnv", ClusterEnvs(*info)},
                         {"logs", std::move(logs)}};
  return RestReply{200, std::move(body)};
}

RestReply DashboardScalars(const JobClient& client, std::string_view id) {
  absl::StatusOr<JobInfo> info = client.ReadJob(id);
  if (!info.ok()) return DashboardError(info.status());
  nlohmann::json scalars = nlohmann::json::object();
  nlohmann::json sources = nlohmann::json::array();
  nlohmann::json errors = nlohmann::json::array();
  std::map<std::string, std::vector<ScalarPoint>> by_tag;
  if (std::optional<std::filesystem::path> base =
          LocalDir(info->job.job_spec.base_output_directory)) {
    const std::string log_dir = jobspec::OutputDirsFor(base->string(), "").tensorboard_log_dir;
    for (const std::filesystem::path& file : ListEventFiles(log_dir)) {
      absl::StatusOr<std::vector<ScalarPoint>> points = ReadScalarEventFile(file);
      if (!points.ok()) {
        errors.push_back(std::string(points.status().message()));
        continue;
      }
      sources.push_back(file.string());
      for (ScalarPoint& point : *points) by_tag[point.tag].push_back(std::move(point));
    }
  }
  for (auto& [tag, points] : by_tag) {
    std::stable_sort(points.begin(), points.end(),
                     [](const ScalarPoint& a, const ScalarPoint& b) { return a.step < b.step; });
    for (const ScalarPoint& point : points) {
      AddPoints(scalars, tag, point.step, point.value, point.wall_time);
    }
  }
  const std::string metric_file = PoolEnv(info->job, "CLOUD_ML_HP_METRIC_FILE");
  const std::string metric = PoolEnv(info->job, "CLOUD_ML_HP_METRIC_TAG");
  if (!metric_file.empty() && !metric.empty()) {
    absl::StatusOr<std::vector<jobspec::Measurement>> measurements =
        hptune::ReadHypertuneMetrics(metric_file, metric, info->job.start_time);
    if (!measurements.ok()) {
      errors.push_back(std::string(measurements.status().message()));
    } else if (!measurements->empty()) {
      sources.push_back(metric_file);
      for (const jobspec::Measurement& m : *measurements) {
        std::optional<double> value = jobspec::MetricValue(m, metric);
        if (!value.has_value()) continue;
        double wall = 0;
        if (m.elapsed_duration.has_value() && info->job.start_time.has_value()) {
          wall = absl::ToDoubleSeconds(*info->job.start_time + *m.elapsed_duration -
                                       absl::UnixEpoch());
        }
        AddPoints(scalars, "hypertune/" + metric, m.step_count, *value, wall);
      }
    }
  }
  return RestReply{200,
                   {{"scalars", std::move(scalars)},
                    {"sources", std::move(sources)},
                    {"errors", std::move(errors)}}};
}

RestReply DashboardTuningJobs(const std::filesystem::path& home) {
  hptune::TuningJobStore store(home);
  absl::StatusOr<std::vector<std::string>> ids = store.ListJobIds();
  if (!ids.ok()) return DashboardError(ids.status());
  std::vector<std::pair<absl::Time, nlohmann::json>> rows;
  for (const std::string& id : *ids) {
    absl::StatusOr<jobspec::HyperparameterTuningJob> job = store.ReadJob(id);
    if (!job.ok()) continue;
    nlohmann::json row = {{"id", id},
                          {"displayName", job->display_name},
                          {"state", std::string(jobspec::JobStateName(job->state))},
                          {"createTime", TimeText(job->create_time)},
                          {"trials", job->trials.size()}};
    if (const jobspec::Trial* best = hptune::BestTrial(*job)) row["bestTrialId"] = best->id;
    rows.emplace_back(job->create_time.value_or(absl::InfinitePast()), std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  nlohmann::json list = nlohmann::json::array();
  for (auto& [time, row] : rows) list.push_back(std::move(row));
  return RestReply{200, {{"tuningJobs", std::move(list)}}};
}

RestReply DashboardTuningJob(const std::filesystem::path& home, std::string_view id) {
  hptune::TuningJobStore store(home);
  absl::StatusOr<jobspec::HyperparameterTuningJob> job = store.ReadJob(id);
  if (!job.ok()) return DashboardError(job.status());
  nlohmann::json trial_jobs = nlohmann::json::object();
  for (const jobspec::Trial& trial : job->trials) {
    std::string_view custom_job = trial.custom_job;
    if (size_t slash = custom_job.rfind('/'); slash != std::string_view::npos) {
      custom_job.remove_prefix(slash + 1);
    }
    if (!custom_job.empty()) trial_jobs[trial.id] = std::string(custom_job);
  }
  return RestReply{200,
                   {{"id", std::string(id)},
                    {"job", jobspec::HyperparameterTuningJobToJson(*job)},
                    {"results", hptune::ResultsJson(*job)},
                    {"trialJobs", std::move(trial_jobs)}}};
}

}  // namespace trainpkg::sdk::serve
