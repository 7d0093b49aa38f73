#include "sdk/hptune/results_table.h"

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "fmt/format.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "sdk/hptune/metric_plot.h"
#include "sdk/hptune/trial_args.h"

namespace trainpkg::sdk::hptune {
namespace {

const std::string& MetricId(const jobspec::HyperparameterTuningJob& job) {
  static const std::string kNone;
  return job.study_spec.metrics.empty() ? kNone : job.study_spec.metrics.front().metric_id;
}

bool Minimize(const jobspec::HyperparameterTuningJob& job) {
  return !job.study_spec.metrics.empty() &&
         jobspec::EffectiveGoal(job.study_spec.metrics.front()) == jobspec::GoalType::kMinimize;
}

// By number: trial "10" comes after "9".
int64_t IdNumber(const jobspec::Trial& trial) {
  int64_t number = 0;
  for (char c : trial.id) {
    if (c < '0' || c > '9') return 0;
    number = number * 10 + (c - '0');
  }
  return number;
}

// Trials in table order: best objective first, then those without one.
std::vector<const jobspec::Trial*> SortedTrials(const jobspec::HyperparameterTuningJob& job) {
  std::vector<const jobspec::Trial*> trials;
  for (const jobspec::Trial& trial : job.trials) trials.push_back(&trial);
  const bool minimize = Minimize(job);
  std::stable_sort(trials.begin(), trials.end(),
                   [&](const jobspec::Trial* a, const jobspec::Trial* b) {
                     const std::optional<double> x = TrialObjective(job, *a);
                     const std::optional<double> y = TrialObjective(job, *b);
                     if (x.has_value() != y.has_value()) return x.has_value();
                     if (x && *x != *y) return minimize ? *x < *y : *x > *y;
                     return IdNumber(*a) < IdNumber(*b);
                   });
  return trials;
}

std::optional<double> DurationSeconds(const jobspec::Trial& trial) {
  if (!trial.start_time || !trial.end_time) return std::nullopt;
  return absl::ToDoubleSeconds(*trial.end_time - *trial.start_time);
}

std::string ValueText(const jobspec::HyperparameterTuningJob& job,
                      const jobspec::TrialParameter& p) {
  const jobspec::ParameterSpec* spec = jobspec::FindParameter(job.study_spec, p.parameter_id);
  if (spec != nullptr) {
    absl::StatusOr<std::string> text = FormatParameterValue(*spec, p.value);
    if (text.ok()) return *text;
  }
  if (const auto* s = std::get_if<std::string>(&p.value)) return *s;
  return fmt::format("{}", std::get<double>(p.value));
}

// Parameter ids in study order, conditional children after their parent.
void CollectIds(const jobspec::ParameterSpec& spec, std::vector<std::string>& ids) {
  ids.push_back(spec.parameter_id);
  for (const jobspec::ConditionalParameterSpec& child : spec.conditional_parameter_specs) {
    CollectIds(child.parameter_spec, ids);
  }
}

}  // namespace

std::optional<double> TrialObjective(const jobspec::HyperparameterTuningJob& job,
                                     const jobspec::Trial& trial) {
  if (!trial.final_measurement) return std::nullopt;
  return jobspec::MetricValue(*trial.final_measurement, MetricId(job));
}

const jobspec::Trial* BestTrial(const jobspec::HyperparameterTuningJob& job) {
  const std::vector<const jobspec::Trial*> trials = SortedTrials(job);
  if (trials.empty() || !TrialObjective(job, *trials.front())) return nullptr;
  return trials.front();
}

std::string FormatResultsTable(const jobspec::HyperparameterTuningJob& job) {
  std::vector<std::string> ids;
  for (const jobspec::ParameterSpec& spec : job.study_spec.parameters) CollectIds(spec, ids);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"TRIAL"};
  header.insert(header.end(), ids.begin(), ids.end());
  header.insert(header.end(), {MetricId(job), "STATE", "DURATION"});
  rows.push_back(header);
  for (const jobspec::Trial* trial : SortedTrials(job)) {
    std::vector<std::string> row = {trial->id};
    for (const std::string& id : ids) {
      const auto it = std::find_if(trial->parameters.begin(), trial->parameters.end(),
                                   [&](const auto& p) { return p.parameter_id == id; });
      row.push_back(it == trial->parameters.end() ? "-" : ValueText(job, *it));
    }
    const std::optional<double> objective = TrialObjective(job, *trial);
    row.push_back(objective ? fmt::format("{:.6g}", *objective) : "-");
    row.push_back(std::string(jobspec::TrialStateName(trial->state)));
    const std::optional<double> seconds = DurationSeconds(*trial);
    row.push_back(seconds ? fmt::format("{:.1f}s", *seconds) : "-");
    rows.push_back(std::move(row));
  }
  for (auto& row : rows) {
    // Ids and values come from the job file and the trials: no escape sequence
    // reaches the terminal.
    for (std::string& cell : row) cell = base::TerminalSafe(cell);
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], widths[i]);
    }
    text += line + "\n";
  }
  const jobspec::Trial* best = BestTrial(job);
  if (best == nullptr) {
    text += "No trial succeeded.\n";
    return text;
  }
  std::vector<std::string> args;
  for (const jobspec::TrialParameter& p : best->parameters) {
    args.push_back(fmt::format("--{}={}", p.parameter_id, ValueText(job, p)));
  }
  text += fmt::format("Best trial: {} ({} = {:.6g}): {}\n", base::TerminalSafe(best->id),
                      base::TerminalSafe(MetricId(job)), *TrialObjective(job, *best),
                      base::TerminalSafe(absl::StrJoin(args, " ")));
  return text;
}

nlohmann::json ResultsJson(const jobspec::HyperparameterTuningJob& job) {
  nlohmann::json json;
  json["tuningJob"] = jobspec::HyperparameterTuningJobToJson(job);
  json["metricId"] = MetricId(job);
  json["goal"] = Minimize(job) ? "MINIMIZE" : "MAXIMIZE";
  if (const jobspec::Trial* best = BestTrial(job)) json["bestTrialId"] = best->id;
  nlohmann::json trials = nlohmann::json::array();
  for (const jobspec::Trial* trial : SortedTrials(job)) {
    nlohmann::json entry;
    entry["id"] = trial->id;
    entry["state"] = std::string(jobspec::TrialStateName(trial->state));
    nlohmann::json parameters = nlohmann::json::object();
    for (const jobspec::TrialParameter& p : trial->parameters) {
      std::visit([&](const auto& value) { parameters[p.parameter_id] = value; }, p.value);
    }
    entry["parameters"] = std::move(parameters);
    if (const std::optional<double> objective = TrialObjective(job, *trial)) {
      entry["objective"] = *objective;
    }
    if (const std::optional<double> seconds = DurationSeconds(*trial)) {
      entry["durationSeconds"] = *seconds;
    }
    trials.push_back(std::move(entry));
  }
  json["trials"] = std::move(trials);
  return json;
}

absl::Status WriteResults(const jobspec::HyperparameterTuningJob& job,
                          const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        fmt::format("{}: cannot create the results directory: {}", dir.string(), error.message()));
  }
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir / "results.json", ResultsJson(job).dump(2) + "\n"));
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir / "results.svg", MetricPlotSvg(job)));
  return base::WriteFileAtomic(dir / "results.txt", FormatResultsTable(job));
}

}  // namespace trainpkg::sdk::hptune
