#include "jobspec/hyperparameter_tuning_job_file.h"

#include <array>
#include <string>

#include "base/closest_match.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "jobspec/internal/vertex_json.h"
#include "jobspec/job_file.h"
#include "jobspec/study_spec_python_form.h"

namespace trainpkg::jobspec {
namespace {

using internal::kVertexJson;
using Json = nlohmann::json;

// gcloud accepts a single mapping where the list of worker pools belongs.
void WrapSingleWorkerPool(Json& spec) {
  if (!spec.is_object()) return;
  for (const char* key : {"workerPoolSpecs", "worker_pool_specs"}) {
    auto it = spec.find(key);
    if (it != spec.end() && it->is_object()) *it = Json::array({*it});
  }
}

bool IsPythonForm(const Json& document) {
  return document.contains("metric_spec") || document.contains("parameter_spec");
}

absl::StatusOr<HyperparameterTuningJob> FromPythonForm(const Json& document) {
  static constexpr std::array<std::string_view, 10> kKeys = {
      "display_name",     "metric_spec",           "parameter_spec",
      "max_trial_count",  "parallel_trial_count",  "max_failed_trial_count",
      "search_algorithm", "measurement_selection", "labels",
      "trial_job_spec"};
  for (const auto& [key, value] : document.items()) {
    bool known = false;
    for (std::string_view name : kKeys) known = known || key == name;
    if (!known) {
      std::string suggestion = base::DidYouMean(key, kKeys);
      if (suggestion.empty()) suggestion = fmt::format("; valid keys: {}", fmt::join(kKeys, ", "));
      return kVertexJson.Error(key,
                               fmt::format("unknown key of the Python SDK form{}", suggestion));
    }
  }
  // Everything but the study goes through the REST reader, in snake_case.
  Json rest = Json::object();
  for (const char* key : {"display_name", "max_trial_count", "parallel_trial_count",
                          "max_failed_trial_count", "labels", "trial_job_spec"}) {
    if (auto it = document.find(key); it != document.end()) rest[key] = *it;
  }
  if (auto it = rest.find("trial_job_spec"); it != rest.end()) WrapSingleWorkerPool(*it);
  TP_ASSIGN_OR_RETURN(HyperparameterTuningJob job, HyperparameterTuningJobFromJson(rest));
  StudySpec& study = job.study_spec;
  if (auto it = document.find("metric_spec"); it != document.end()) {
    TP_ASSIGN_OR_RETURN(study.metrics, MetricSpecsFromPythonForm(*it, "metric_spec"));
  }
  if (auto it = document.find("parameter_spec"); it != document.end()) {
    TP_ASSIGN_OR_RETURN(study.parameters, ParameterSpecsFromPythonForm(*it, "parameter_spec"));
  }
  if (auto it = document.find("search_algorithm"); it != document.end()) {
    TP_ASSIGN_OR_RETURN(study.algorithm, SearchAlgorithmFromPythonForm(*it, "search_algorithm"));
  }
  // The SDK's default measurement_selection is 'best'.
  study.measurement_selection_type = MeasurementSelection::kBest;
  if (auto it = document.find("measurement_selection"); it != document.end()) {
    TP_ASSIGN_OR_RETURN(study.measurement_selection_type,
                        MeasurementSelectionFromPythonForm(*it, "measurement_selection"));
  }
  return job;
}

}  // namespace

absl::StatusOr<HyperparameterTuningJob> ParseHyperparameterTuningJobFile(std::string_view text) {
  TP_ASSIGN_OR_RETURN(Json document, ParseJsonOrYaml(text));
  if (document.is_null()) {
    return absl::InvalidArgumentError(
        "the tuning job file is empty; expected a HyperparameterTuningJob {displayName, "
        "studySpec, maxTrialCount, parallelTrialCount, trialJobSpec} or the Python SDK form "
        "{display_name, metric_spec, parameter_spec, ...}");
  }
  if (!document.is_object()) {
    return absl::InvalidArgumentError(
        "expected a mapping at the top level: a HyperparameterTuningJob {displayName, studySpec, "
        "...} or the Python SDK form {display_name, metric_spec, parameter_spec, ...}");
  }
  if (IsPythonForm(document)) return FromPythonForm(document);
  for (const char* key : {"trialJobSpec", "trial_job_spec"}) {
    if (auto it = document.find(key); it != document.end()) WrapSingleWorkerPool(*it);
  }
  return HyperparameterTuningJobFromJson(document);
}

absl::StatusOr<HyperparameterTuningJob> LoadHyperparameterTuningJobFile(
    const std::filesystem::path& path) {
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(path));
  absl::StatusOr<HyperparameterTuningJob> job = ParseHyperparameterTuningJobFile(text);
  if (!job.ok()) {
    return base::WithContext(job.status(), path.string());
  }
  return job;
}

}  // namespace trainpkg::jobspec
