#include "jobspec/hyperparameter_tuning_job_validation.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace trainpkg::jobspec {
namespace {

// Vertex: a discreteValueSpec holds at most 1000 values.
constexpr size_t kMaxDiscreteValues = 1000;
constexpr double kMinDiscreteGap = 1e-10;
// Vertex documents no bound for the rest; these cover real studies and keep
// what a study allocates small. Categorical lists and parent conditions get
// the discrete bound.
constexpr size_t kMaxCategoricalValues = kMaxDiscreteValues;
constexpr size_t kMaxParentValues = kMaxDiscreteValues;
// Parameters, conditional ones included: each is a dimension of the search
// space (the grid search recurses once per dimension).
constexpr size_t kMaxParameters = 100;
// The Gaussian-process suggester keeps an n x n matrix over finished trials.
constexpr int32_t kMaxTrialCount = 1000;
// Each parallel trial is a whole CustomJob running at once.
constexpr int32_t kMaxParallelTrialCount = 100;

class Issues {
 public:
  void Add(std::string field, std::string message) {
    list_.push_back({std::move(field), std::move(message)});
  }
  std::vector<ValidationIssue> Take() && { return std::move(list_); }

 private:
  std::vector<ValidationIssue> list_;
};

std::string Path(std::string_view parent, std::string_view field) {
  return parent.empty() ? std::string(field) : fmt::format("{}.{}", parent, field);
}

bool HasWhitespace(std::string_view text) {
  for (char c : text) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

void CheckId(std::string_view id, const std::string& path, std::string_view what, Issues& issues) {
  if (id.empty()) {
    issues.Add(path, fmt::format("required: the {} id", what));
  } else if (HasWhitespace(id)) {
    issues.Add(path, fmt::format("'{}' must not contain whitespace", id));
  }
}

bool IsLogScale(ScaleType scale) {
  return scale == ScaleType::kLog || scale == ScaleType::kReverseLog;
}

void CheckDouble(const DoubleValueSpec& spec, ScaleType scale, const std::string& path,
                 Issues& issues) {
  const std::string min_path = Path(path, "doubleValueSpec.minValue");
  if (!std::isfinite(spec.min_value) || !std::isfinite(spec.max_value)) {
    issues.Add(min_path, "minValue and maxValue must be finite numbers");
    return;
  }
  if (!(spec.min_value < spec.max_value)) {
    issues.Add(min_path,
               fmt::format("must be < maxValue ({}); it is {}", spec.max_value, spec.min_value));
  }
  if (IsLogScale(scale) && spec.min_value <= 0) {
    issues.Add(min_path, fmt::format("{} needs minValue > 0; it is {}", ScaleTypeName(scale),
                                     spec.min_value));
  }
}

void CheckInteger(const IntegerValueSpec& spec, ScaleType scale, const std::string& path,
                  Issues& issues) {
  const std::string min_path = Path(path, "integerValueSpec.minValue");
  if (spec.min_value > spec.max_value) {
    issues.Add(min_path,
               fmt::format("must be <= maxValue ({}); it is {}", spec.max_value, spec.min_value));
  }
  if (IsLogScale(scale) && spec.min_value <= 0) {
    issues.Add(min_path, fmt::format("{} needs minValue > 0; it is {}", ScaleTypeName(scale),
                                     spec.min_value));
  }
}

void CheckCategorical(const CategoricalValueSpec& spec, ScaleType scale, const std::string& path,
                      Issues& issues) {
  const std::string values_path = Path(path, "categoricalValueSpec.values");
  if (spec.values.empty()) issues.Add(values_path, "needs at least one value");
  if (spec.values.size() > kMaxCategoricalValues) {
    issues.Add(values_path, fmt::format("has {} values; at most {} are allowed", spec.values.size(),
                                        kMaxCategoricalValues));
    return;  // one issue, not one per value
  }
  std::set<std::string_view> seen;
  for (size_t i = 0; i < spec.values.size(); ++i) {
    if (!seen.insert(spec.values[i]).second) {
      issues.Add(fmt::format("{}[{}]", values_path, i),
                 fmt::format("'{}' is listed twice; values must be unique", spec.values[i]));
    }
  }
  if (scale != ScaleType::kUnspecified) {
    issues.Add(Path(path, "scaleType"), "must be unset for a categorical parameter");
  }
}

void CheckDiscrete(const DiscreteValueSpec& spec, ScaleType scale, const std::string& path,
                   Issues& issues) {
  const std::string values_path = Path(path, "discreteValueSpec.values");
  if (spec.values.empty()) issues.Add(values_path, "needs at least one value");
  if (spec.values.size() > kMaxDiscreteValues) {
    issues.Add(values_path, fmt::format("has {} values; at most {} are allowed", spec.values.size(),
                                        kMaxDiscreteValues));
    return;  // one issue, not one per value
  }
  for (size_t i = 0; i < spec.values.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", values_path, i);
    if (!std::isfinite(spec.values[i])) {
      issues.Add(at, "must be a finite number");
    } else if (i > 0 && !(spec.values[i] - spec.values[i - 1] >= kMinDiscreteGap)) {
      issues.Add(at, fmt::format("values must increase by at least 1e-10; {} follows {}",
                                 spec.values[i], spec.values[i - 1]));
    }
  }
  if (IsLogScale(scale) && !spec.values.empty() && spec.values.front() <= 0) {
    issues.Add(values_path, fmt::format("{} needs every value > 0; the smallest is {}",
                                        ScaleTypeName(scale), spec.values.front()));
  }
}

// The field name and length of the value list a parent condition holds.
std::pair<std::string_view, size_t> ParentValueList(const ParentValueCondition& condition) {
  if (const auto* ints = std::get_if<ParentIntValues>(&condition)) {
    return {"parentIntValues", ints->values.size()};
  }
  if (const auto* texts = std::get_if<ParentCategoricalValues>(&condition)) {
    return {"parentCategoricalValues", texts->values.size()};
  }
  if (const auto* numbers = std::get_if<ParentDiscreteValues>(&condition)) {
    return {"parentDiscreteValues", numbers->values.size()};
  }
  return {"", 0};
}

// Every parent value in `condition` is a feasible value of `parent`, and
// the kind of condition fits the parent's type.
void CheckCondition(const ParentValueCondition& condition, const ParameterSpec& parent,
                    const std::string& path, Issues& issues) {
  const auto& spec = parent.value_spec;
  if (std::holds_alternative<std::monostate>(condition)) {
    issues.Add(path, "needs parentIntValues, parentCategoricalValues or parentDiscreteValues");
    return;
  }
  const auto [name, count] = ParentValueList(condition);
  if (count > kMaxParentValues) {
    issues.Add(fmt::format("{}.{}.values", path, name),
               fmt::format("has {} values; at most {} are allowed", count, kMaxParentValues));
    return;  // one issue, not one per value
  }
  if (const auto* ints = std::get_if<ParentIntValues>(&condition)) {
    const auto* parent_spec = std::get_if<IntegerValueSpec>(&spec);
    if (parent_spec == nullptr) {
      issues.Add(Path(path, "parentIntValues"), "the parent is not an integer parameter");
      return;
    }
    if (ints->values.empty()) issues.Add(Path(path, "parentIntValues.values"), "is empty");
    for (size_t i = 0; i < ints->values.size(); ++i) {
      int64_t value = ints->values[i];
      if (value < parent_spec->min_value || value > parent_spec->max_value) {
        issues.Add(fmt::format("{}.parentIntValues.values[{}]", path, i),
                   fmt::format("{} is outside the parent's range [{}, {}]", value,
                               parent_spec->min_value, parent_spec->max_value));
      }
    }
    return;
  }
  if (const auto* texts = std::get_if<ParentCategoricalValues>(&condition)) {
    const auto* parent_spec = std::get_if<CategoricalValueSpec>(&spec);
    if (parent_spec == nullptr) {
      issues.Add(Path(path, "parentCategoricalValues"),
                 "the parent is not a categorical parameter");
      return;
    }
    if (texts->values.empty()) issues.Add(Path(path, "parentCategoricalValues.values"), "is empty");
    for (size_t i = 0; i < texts->values.size(); ++i) {
      const std::string& value = texts->values[i];
      if (std::find(parent_spec->values.begin(), parent_spec->values.end(), value) ==
          parent_spec->values.end()) {
        issues.Add(fmt::format("{}.parentCategoricalValues.values[{}]", path, i),
                   fmt::format("'{}' is not a value of the parent; its values are {}", value,
                               fmt::join(parent_spec->values, ", ")));
      }
    }
    return;
  }
  const auto& numbers = std::get<ParentDiscreteValues>(condition);
  const auto* parent_spec = std::get_if<DiscreteValueSpec>(&spec);
  if (parent_spec == nullptr) {
    issues.Add(Path(path, "parentDiscreteValues"), "the parent is not a discrete parameter");
    return;
  }
  if (numbers.values.empty()) issues.Add(Path(path, "parentDiscreteValues.values"), "is empty");
  for (size_t i = 0; i < numbers.values.size(); ++i) {
    double value = numbers.values[i];
    if (std::find(parent_spec->values.begin(), parent_spec->values.end(), value) ==
        parent_spec->values.end()) {
      issues.Add(fmt::format("{}.parentDiscreteValues.values[{}]", path, i),
                 fmt::format("{} is not a value of the parent; its values are {}", value,
                             fmt::join(parent_spec->values, ", ")));
    }
  }
}

void CheckParameter(const ParameterSpec& parameter, const std::string& path,
                    SearchAlgorithm algorithm, std::set<std::string>& ids, Issues& issues) {
  CheckId(parameter.parameter_id, Path(path, "parameterId"), "parameter", issues);
  if (!parameter.parameter_id.empty() && !ids.insert(parameter.parameter_id).second) {
    issues.Add(Path(path, "parameterId"),
               fmt::format("'{}' is used by another parameter; ids must be unique",
                           parameter.parameter_id));
  }
  const auto& spec = parameter.value_spec;
  if (const auto* d = std::get_if<DoubleValueSpec>(&spec)) {
    CheckDouble(*d, parameter.scale_type, path, issues);
    if (algorithm == SearchAlgorithm::kGridSearch) {
      issues.Add(Path(path, "doubleValueSpec"),
                 "GRID_SEARCH takes only integer, categorical and discrete parameters; use a "
                 "discreteValueSpec or another algorithm");
    }
  } else if (const auto* i = std::get_if<IntegerValueSpec>(&spec)) {
    CheckInteger(*i, parameter.scale_type, path, issues);
  } else if (const auto* c = std::get_if<CategoricalValueSpec>(&spec)) {
    CheckCategorical(*c, parameter.scale_type, path, issues);
  } else if (const auto* v = std::get_if<DiscreteValueSpec>(&spec)) {
    CheckDiscrete(*v, parameter.scale_type, path, issues);
  } else {
    issues.Add(path,
               "needs one of doubleValueSpec, integerValueSpec, categoricalValueSpec, "
               "discreteValueSpec");
  }
  for (size_t i = 0; i < parameter.conditional_parameter_specs.size(); ++i) {
    const ConditionalParameterSpec& child = parameter.conditional_parameter_specs[i];
    const std::string child_path = fmt::format("{}.conditionalParameterSpecs[{}]", path, i);
    CheckCondition(child.parent_values, parameter, child_path, issues);
    CheckParameter(child.parameter_spec, Path(child_path, "parameterSpec"), algorithm, ids, issues);
  }
}

// Parameters with their conditional children, without recursion.
size_t CountParameters(const std::vector<ParameterSpec>& parameters) {
  size_t count = 0;
  std::vector<const ParameterSpec*> pending;
  for (const ParameterSpec& parameter : parameters) pending.push_back(&parameter);
  while (!pending.empty()) {
    const ParameterSpec* parameter = pending.back();
    pending.pop_back();
    ++count;
    for (const ConditionalParameterSpec& child : parameter->conditional_parameter_specs) {
      pending.push_back(&child.parameter_spec);
    }
  }
  return count;
}

void CheckStudySpec(const StudySpec& spec, std::string_view path, Issues& issues) {
  const std::string metrics_path = Path(path, "metrics");
  if (spec.metrics.size() != 1) {
    issues.Add(metrics_path, fmt::format("hyperparameter tuning needs exactly one metric; {} given",
                                         spec.metrics.size()));
  }
  for (size_t i = 0; i < spec.metrics.size(); ++i) {
    CheckId(spec.metrics[i].metric_id, fmt::format("{}[{}].metricId", metrics_path, i), "metric",
            issues);
  }
  const std::string parameters_path = Path(path, "parameters");
  if (spec.parameters.empty()) issues.Add(parameters_path, "needs at least one parameter");
  if (size_t count = CountParameters(spec.parameters); count > kMaxParameters) {
    issues.Add(parameters_path,
               fmt::format("has {} parameters (conditional ones included); at most {} are allowed",
                           count, kMaxParameters));
    return;  // one issue, not one per parameter
  }
  std::set<std::string> ids;
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    CheckParameter(spec.parameters[i], fmt::format("{}[{}]", parameters_path, i), spec.algorithm,
                   ids, issues);
  }
  if (spec.decay_curve_stopping_spec && spec.median_automated_stopping_spec) {
    issues.Add(Path(path, "medianAutomatedStoppingSpec"),
               "only one of decayCurveStoppingSpec and medianAutomatedStoppingSpec may be set");
  }
}

}  // namespace

std::vector<ValidationIssue> CollectStudySpecIssues(const StudySpec& spec, std::string_view path) {
  Issues issues;
  CheckStudySpec(spec, path, issues);
  return std::move(issues).Take();
}

std::vector<ValidationIssue> CollectValidationIssues(const HyperparameterTuningJob& job) {
  std::vector<ValidationIssue> issues;
  // displayName, labels and the trial job spec follow the CustomJob rules.
  CustomJob as_custom_job;
  as_custom_job.display_name = job.display_name;
  as_custom_job.labels = job.labels;
  as_custom_job.job_spec = job.trial_job_spec;
  for (ValidationIssue& issue : CollectValidationIssues(as_custom_job)) {
    constexpr std::string_view kJobSpec = "jobSpec";
    if (std::string_view(issue.field).starts_with(kJobSpec)) {
      issue.field = "trialJobSpec" + issue.field.substr(kJobSpec.size());
    }
    issues.push_back(std::move(issue));
  }
  for (ValidationIssue& issue : CollectStudySpecIssues(job.study_spec, "studySpec")) {
    issues.push_back(std::move(issue));
  }
  if (job.max_trial_count < 1) {
    issues.push_back(
        {"maxTrialCount", fmt::format("must be at least 1; it is {}", job.max_trial_count)});
  } else if (job.max_trial_count > kMaxTrialCount) {
    issues.push_back({"maxTrialCount", fmt::format("must be at most {}; it is {}", kMaxTrialCount,
                                                   job.max_trial_count)});
  }
  if (job.parallel_trial_count < 1) {
    issues.push_back({"parallelTrialCount",
                      fmt::format("must be at least 1; it is {}", job.parallel_trial_count)});
  } else if (job.parallel_trial_count > kMaxParallelTrialCount) {
    issues.push_back(
        {"parallelTrialCount", fmt::format("must be at most {}; it is {}", kMaxParallelTrialCount,
                                           job.parallel_trial_count)});
  } else if (job.max_trial_count >= 1 && job.parallel_trial_count > job.max_trial_count) {
    issues.push_back(
        {"parallelTrialCount", fmt::format("must be <= maxTrialCount ({}); it is {}",
                                           job.max_trial_count, job.parallel_trial_count)});
  }
  if (job.max_failed_trial_count < 0) {
    issues.push_back(
        {"maxFailedTrialCount", fmt::format("must be >= 0; it is {}", job.max_failed_trial_count)});
  } else if (job.max_trial_count >= 1 && job.max_failed_trial_count > job.max_trial_count) {
    issues.push_back(
        {"maxFailedTrialCount", fmt::format("must be <= maxTrialCount ({}); it is {}",
                                            job.max_trial_count, job.max_failed_trial_count)});
  }
  return issues;
}

absl::Status ValidateHyperparameterTuningJob(const HyperparameterTuningJob& job) {
  std::vector<ValidationIssue> issues = CollectValidationIssues(job);
  if (issues.empty()) return absl::OkStatus();
  std::string message = fmt::format("invalid hyperparameter tuning job: {}{}", issues.size(),
                                    issues.size() == 1 ? " problem" : " problems");
  for (const ValidationIssue& issue : issues) {
    message += fmt::format("\n  {}: {}", issue.field, issue.message);
  }
  return absl::InvalidArgumentError(message);
}

}  // namespace trainpkg::jobspec
