#include "jobspec/study_spec.h"

#include "jobspec/internal/study_enums.h"

namespace trainpkg::jobspec {
namespace {

const ParameterSpec* FindIn(const std::vector<ParameterSpec>& parameters,
                            std::string_view parameter_id);

const ParameterSpec* FindIn(const ParameterSpec& parameter, std::string_view parameter_id) {
  if (parameter.parameter_id == parameter_id) return &parameter;
  for (const ConditionalParameterSpec& child : parameter.conditional_parameter_specs) {
    if (const ParameterSpec* found = FindIn(child.parameter_spec, parameter_id)) return found;
  }
  return nullptr;
}

const ParameterSpec* FindIn(const std::vector<ParameterSpec>& parameters,
                            std::string_view parameter_id) {
  for (const ParameterSpec& parameter : parameters) {
    if (const ParameterSpec* found = FindIn(parameter, parameter_id)) return found;
  }
  return nullptr;
}

template <typename T>
bool Contains(const std::vector<T>& values, const T& value) {
  for (const T& candidate : values) {
    if (candidate == value) return true;
  }
  return false;
}

}  // namespace

std::string_view GoalTypeName(GoalType goal) {
  return internal::EnumName(internal::GoalTypeEnum(), static_cast<int>(goal));
}

std::string_view ScaleTypeName(ScaleType scale) {
  return internal::EnumName(internal::ScaleTypeEnum(), static_cast<int>(scale));
}

std::string_view SearchAlgorithmName(SearchAlgorithm algorithm) {
  return internal::EnumName(internal::AlgorithmEnum(), static_cast<int>(algorithm));
}

std::string_view MeasurementSelectionName(MeasurementSelection selection) {
  return internal::EnumName(internal::MeasurementSelectionTypeEnum(), static_cast<int>(selection));
}

GoalType EffectiveGoal(const MetricSpec& metric) {
  return metric.goal == GoalType::kMinimize ? GoalType::kMinimize : GoalType::kMaximize;
}

// Written out member by member (the same comparison `= default` gives):
// clang-14 crashes instantiating the defaulted form over the recursive
// std::vector<ConditionalParameterSpec>, which the fuzz build needs.
bool ParameterSpec::operator==(const ParameterSpec& other) const {
  return parameter_id == other.parameter_id && value_spec == other.value_spec &&
         scale_type == other.scale_type &&
         conditional_parameter_specs == other.conditional_parameter_specs;
}

ScaleType EffectiveScale(const ParameterSpec& parameter) {
  return parameter.scale_type == ScaleType::kUnspecified ? ScaleType::kLinear
                                                         : parameter.scale_type;
}

bool ConditionHolds(const ParentValueCondition& condition,
                    const std::variant<double, std::string>& value) {
  if (const auto* discrete = std::get_if<ParentDiscreteValues>(&condition)) {
    const double* number = std::get_if<double>(&value);
    return number != nullptr && Contains(discrete->values, *number);
  }
  if (const auto* ints = std::get_if<ParentIntValues>(&condition)) {
    const double* number = std::get_if<double>(&value);
    if (number == nullptr) return false;
    for (int64_t candidate : ints->values) {
      if (static_cast<double>(candidate) == *number) return true;
    }
    return false;
  }
  if (const auto* categorical = std::get_if<ParentCategoricalValues>(&condition)) {
    const std::string* text = std::get_if<std::string>(&value);
    return text != nullptr && Contains(categorical->values, *text);
  }
  return false;
}

const ParameterSpec* FindParameter(const StudySpec& spec, std::string_view parameter_id) {
  return FindIn(spec.parameters, parameter_id);
}

}  // namespace trainpkg::jobspec
