// The StudySpec of a Vertex AI HyperparameterTuningJob
// (google/cloud/aiplatform/v1/study.proto), as plain C++ values.
//
// Field names follow the proto in snake_case; the JSON form is
// study_spec_json.h, the Python SDK's form study_spec_python_form.h.
// Value types: copyable, no invariants enforced on construction;
// CollectStudySpecIssues() (hyperparameter_tuning_job_validation.h) checks
// them. Enum values *_UNSPECIFIED are kept distinct from the explicit ones so
// that a round trip writes back what was read; the Effective*() helpers give
// the meaning Vertex AI assigns to "unspecified".
#ifndef TRAINPKG_JOBSPEC_STUDY_SPEC_H_
#define TRAINPKG_JOBSPEC_STUDY_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace trainpkg::jobspec {

// StudySpec.MetricSpec.GoalType. Unspecified means MAXIMIZE (study.proto).
enum class GoalType { kUnspecified = 0, kMaximize = 1, kMinimize = 2 };

// StudySpec.ParameterSpec.ScaleType. Unspecified is treated as linear.
enum class ScaleType { kUnspecified = 0, kLinear = 1, kLog = 2, kReverseLog = 3 };

// StudySpec.Algorithm. Unspecified is Vertex AI's default algorithm, which
// the Python SDK documents as Bayesian optimisation; trainpkg runs a Gaussian
// process with expected improvement for it (sdk/hptune/suggester.h).
enum class SearchAlgorithm { kUnspecified = 0, kGridSearch = 2, kRandomSearch = 3 };

// StudySpec.MeasurementSelectionType: which measurement of a trial counts
// when it has no final measurement. Unspecified means LAST_MEASUREMENT.
enum class MeasurementSelection { kUnspecified = 0, kLast = 1, kBest = 2 };

// Proto enum names ("MAXIMIZE", "UNIT_LOG_SCALE", "GRID_SEARCH",
// "BEST_MEASUREMENT"; the *_UNSPECIFIED name for kUnspecified).
std::string_view GoalTypeName(GoalType goal);
std::string_view ScaleTypeName(ScaleType scale);
std::string_view SearchAlgorithmName(SearchAlgorithm algorithm);
std::string_view MeasurementSelectionName(MeasurementSelection selection);

struct MetricSpec {
  std::string metric_id;
  GoalType goal = GoalType::kUnspecified;
  bool operator==(const MetricSpec&) const = default;
};

// kMinimize for kMinimize, else kMaximize.
GoalType EffectiveGoal(const MetricSpec& metric);

struct DoubleValueSpec {
  double min_value = 0;
  double max_value = 0;
  std::optional<double> default_value;  // Vizier only; carried, not used by HPT
  bool operator==(const DoubleValueSpec&) const = default;
};

struct IntegerValueSpec {
  int64_t min_value = 0;  // JSON: int64 as string or number
  int64_t max_value = 0;
  std::optional<int64_t> default_value;
  bool operator==(const IntegerValueSpec&) const = default;
};

struct CategoricalValueSpec {
  std::vector<std::string> values;
  std::optional<std::string> default_value;
  bool operator==(const CategoricalValueSpec&) const = default;
};

// `values` must be strictly increasing (validation).
struct DiscreteValueSpec {
  std::vector<double> values;
  std::optional<double> default_value;
  bool operator==(const DiscreteValueSpec&) const = default;
};

// The oneof parameter_value_spec; monostate when none is set (invalid).
using ParameterValueSpec = std::variant<std::monostate, DoubleValueSpec, IntegerValueSpec,
                                        CategoricalValueSpec, DiscreteValueSpec>;

// The oneof parent_value_condition of a ConditionalParameterSpec: the child
// is active when the parent's value is one of these. The kind must match the
// parent's type (discrete / integer / categorical).
struct ParentDiscreteValues {
  std::vector<double> values;
  bool operator==(const ParentDiscreteValues&) const = default;
};
struct ParentIntValues {
  std::vector<int64_t> values;
  bool operator==(const ParentIntValues&) const = default;
};
struct ParentCategoricalValues {
  std::vector<std::string> values;
  bool operator==(const ParentCategoricalValues&) const = default;
};
using ParentValueCondition =
    std::variant<std::monostate, ParentDiscreteValues, ParentIntValues, ParentCategoricalValues>;

struct ConditionalParameterSpec;

struct ParameterSpec {
  std::string parameter_id;
  ParameterValueSpec value_spec;
  ScaleType scale_type = ScaleType::kUnspecified;
  std::vector<ConditionalParameterSpec> conditional_parameter_specs;
  bool operator==(const ParameterSpec&) const;
};

struct ConditionalParameterSpec {
  ParentValueCondition parent_values;
  ParameterSpec parameter_spec;
  bool operator==(const ConditionalParameterSpec&) const = default;
};

// The scale a suggester uses: kLinear for kUnspecified.
ScaleType EffectiveScale(const ParameterSpec& parameter);

// Whether `value` (a number for double/integer/discrete parents, a string for
// categorical ones) satisfies `condition`. False for monostate.
bool ConditionHolds(const ParentValueCondition& condition,
                    const std::variant<double, std::string>& value);

// Automated stopping specs; both carry only useElapsedDuration: compare
// trials by elapsed time instead of by step count.
struct DecayCurveStoppingSpec {
  bool use_elapsed_duration = false;
  bool operator==(const DecayCurveStoppingSpec&) const = default;
};
struct MedianAutomatedStoppingSpec {
  bool use_elapsed_duration = false;
  bool operator==(const MedianAutomatedStoppingSpec&) const = default;
};

struct StudySpec {
  std::vector<MetricSpec> metrics;  // exactly one for HPT
  std::vector<ParameterSpec> parameters;
  SearchAlgorithm algorithm = SearchAlgorithm::kUnspecified;
  MeasurementSelection measurement_selection_type = MeasurementSelection::kUnspecified;
  // The oneof automated_stopping_spec: at most one is set (validation).
  std::optional<DecayCurveStoppingSpec> decay_curve_stopping_spec;
  std::optional<MedianAutomatedStoppingSpec> median_automated_stopping_spec;
  bool operator==(const StudySpec&) const = default;
};

// The parameter with id `parameter_id`, searching conditional children at
// any depth; nullptr when absent. The pointer is into `spec`.
const ParameterSpec* FindParameter(const StudySpec& spec, std::string_view parameter_id);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_STUDY_SPEC_H_
