#include "sdk/hptune/trial_args.h"

#include <cmath>
#include <string>
#include <variant>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::sdk::hptune {
namespace {

// Shortest round-trip text, like Python's repr(float): whole numbers keep
// a ".0".
std::string FloatText(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEni") == std::string::npos) text += ".0";
  return text;
}

absl::Status TypeError(const jobspec::ParameterSpec& parameter, std::string_view expected,
                       const jobspec::ParameterValueType& value) {
  std::string got = std::holds_alternative<std::string>(value)
                        ? fmt::format("the string '{}'", std::get<std::string>(value))
                        : fmt::format("the number {}", std::get<double>(value));
  return absl::InvalidArgumentError(
      fmt::format("parameter '{}': expected {}, got {}", parameter.parameter_id, expected, got));
}

}  // namespace

absl::StatusOr<std::string> FormatParameterValue(const jobspec::ParameterSpec& parameter,
                                                 const jobspec::ParameterValueType& value) {
  const auto& spec = parameter.value_spec;
  if (std::holds_alternative<jobspec::CategoricalValueSpec>(spec)) {
    if (const auto* text = std::get_if<std::string>(&value)) return *text;
    return TypeError(parameter, "a categorical value (string)", value);
  }
  const double* number = std::get_if<double>(&value);
  if (std::holds_alternative<jobspec::IntegerValueSpec>(spec)) {
    // 2^53: past it a double no longer holds every whole number, so the
    // printed value could be one the study never chose.
    if (number == nullptr || !std::isfinite(*number) || std::trunc(*number) != *number ||
        std::fabs(*number) > 9.007199254740992e15) {
      return TypeError(parameter, "a whole number", value);
    }
    return fmt::format("{}", static_cast<int64_t>(*number));
  }
  if (std::holds_alternative<jobspec::DoubleValueSpec>(spec) ||
      std::holds_alternative<jobspec::DiscreteValueSpec>(spec)) {
    if (number == nullptr) return TypeError(parameter, "a number", value);
    return FloatText(*number);
  }
  return absl::InvalidArgumentError(
      fmt::format("parameter '{}' has no value spec", parameter.parameter_id));
}

absl::StatusOr<std::vector<std::string>> TrialArgs(
    const jobspec::StudySpec& spec, const std::vector<jobspec::TrialParameter>& parameters) {
  std::vector<std::string> args;
  args.reserve(parameters.size());
  for (const jobspec::TrialParameter& parameter : parameters) {
    const jobspec::ParameterSpec* parameter_spec = FindParameter(spec, parameter.parameter_id);
    if (parameter_spec == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "trial parameter '{}' is not a parameter of the study", parameter.parameter_id));
    }
    TP_ASSIGN_OR_RETURN(std::string text, FormatParameterValue(*parameter_spec, parameter.value));
    args.push_back(fmt::format("--{}={}", parameter.parameter_id, text));
  }
  return args;
}

}  // namespace trainpkg::sdk::hptune
