// The Python SDK's metric_spec / parameter_spec form -> StudySpec parts
// (study_spec_python_form.h).
#include "jobspec/study_spec_python_form.h"

#include <array>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/internal/study_json_values.h"
#include "jobspec/internal/vertex_json.h"

namespace trainpkg::jobspec {
namespace {

using base::DescribeJson;
using base::FieldPath;
using internal::kVertexJson;
using Json = nlohmann::json;

// One word from a fixed set, case-insensitive; the index into `words`.
absl::StatusOr<size_t> Word(const Json& value, std::string_view path,
                            absl::Span<const std::string_view> words) {
  if (!value.is_string()) {
    return kVertexJson.Error(path, fmt::format("expected one of {}, got {}", fmt::join(words, ", "),
                                               DescribeJson(value)));
  }
  std::string word = absl::AsciiStrToLower(value.get<std::string>());
  for (size_t i = 0; i < words.size(); ++i) {
    if (word == words[i]) return i;
  }
  std::string suggestion = base::DidYouMean(word, words);
  if (suggestion.empty()) suggestion = fmt::format("; valid: {}", fmt::join(words, ", "));
  return kVertexJson.Error(
      path, fmt::format("unknown value '{}'{}", value.get<std::string>(), suggestion));
}

absl::StatusOr<ScaleType> Scale(const Json* value, std::string_view path) {
  if (value == nullptr || value->is_null()) return ScaleType::kUnspecified;
  static constexpr std::array<std::string_view, 4> kWords = {"unspecified", "linear", "log",
                                                             "reverse_log"};
  TP_ASSIGN_OR_RETURN(size_t index, Word(*value, path, kWords));
  return static_cast<ScaleType>(index);
}

// Categorical values: strings; YAML scalars that parsed as numbers or bools
// are taken as the text a user wrote (best effort: JSON's text of them).
absl::StatusOr<std::vector<std::string>> CategoricalValues(const Json& values,
                                                           std::string_view path) {
  if (!values.is_array()) {
    return kVertexJson.Error(path, fmt::format("expected a list, got {}", DescribeJson(values)));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < values.size(); ++i) {
    const Json& item = values[i];
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
    } else if (item.is_number() || item.is_boolean()) {
      out.push_back(item.dump());
    } else {
      return kVertexJson.Error(base::IndexPath(path, i),
                               fmt::format("expected a string, got {}", DescribeJson(item)));
    }
  }
  return out;
}

absl::StatusOr<ParameterSpec> SpecFromPythonForm(const std::string& id, const Json& value,
                                                 const std::string& path);

// conditional_parameter_spec of `parent`, whose type decides the kind of
// parent condition.
absl::Status ReadConditionals(const Json& conditionals, const std::string& path,
                              ParameterSpec& parent) {
  if (!conditionals.is_object()) {
    return kVertexJson.Error(path, fmt::format("expected a mapping of parameter id to spec, got {}",
                                               DescribeJson(conditionals)));
  }
  for (const auto& [child_id, child_value] : conditionals.items()) {
    const std::string child_path = FieldPath(path, child_id);
    if (!child_value.is_object()) {
      return kVertexJson.Error(
          child_path, fmt::format("expected a mapping, got {}", DescribeJson(child_value)));
    }
    Json child_spec = child_value;
    auto parent_values = child_spec.find("parent_values");
    if (parent_values == child_spec.end()) {
      return kVertexJson.Error(FieldPath(child_path, "parent_values"),
                               "required: the parent values that activate this parameter");
    }
    const Json values = *parent_values;
    child_spec.erase(parent_values);
    const std::string values_path = FieldPath(child_path, "parent_values");
    ConditionalParameterSpec conditional;
    if (std::holds_alternative<IntegerValueSpec>(parent.value_spec)) {
      TP_ASSIGN_OR_RETURN(std::vector<int64_t> ints, internal::Int64List(values, values_path));
      conditional.parent_values = ParentIntValues{std::move(ints)};
    } else if (std::holds_alternative<DiscreteValueSpec>(parent.value_spec)) {
      TP_ASSIGN_OR_RETURN(std::vector<double> numbers, internal::DoubleList(values, values_path));
      conditional.parent_values = ParentDiscreteValues{std::move(numbers)};
    } else if (std::holds_alternative<CategoricalValueSpec>(parent.value_spec)) {
      TP_ASSIGN_OR_RETURN(std::vector<std::string> texts, CategoricalValues(values, values_path));
      conditional.parent_values = ParentCategoricalValues{std::move(texts)};
    } else {
      return kVertexJson.Error(
          path,
          "only integer, categorical and discrete parameters can have conditional "
          "parameters");
    }
    TP_ASSIGN_OR_RETURN(conditional.parameter_spec,
                        SpecFromPythonForm(child_id, child_spec, child_path));
    parent.conditional_parameter_specs.push_back(std::move(conditional));
  }
  return absl::OkStatus();
}

// Checks that `spec` has only `allowed` keys (plus type and
// conditional_parameter_spec).
absl::Status CheckKeys(const Json& spec, const std::string& path,
                       std::vector<std::string_view> allowed) {
  allowed.push_back("type");
  allowed.push_back("conditional_parameter_spec");
  for (const auto& [key, item] : spec.items()) {
    bool known = false;
    for (std::string_view name : allowed) known = known || key == name;
    if (!known) {
      std::string suggestion = base::DidYouMean(key, allowed);
      if (suggestion.empty())
        suggestion = fmt::format("; valid keys: {}", fmt::join(allowed, ", "));
      return kVertexJson.Error(FieldPath(path, key), fmt::format("unknown key{}", suggestion));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ParameterSpec> SpecFromPythonForm(const std::string& id, const Json& value,
                                                 const std::string& path) {
  if (!value.is_object()) {
    return kVertexJson.Error(path,
                             fmt::format("expected a mapping like {{type: double, min: 0.001, "
                                         "max: 0.1, scale: log}}, got {}",
                                         DescribeJson(value)));
  }
  static constexpr std::array<std::string_view, 4> kTypes = {"double", "integer", "categorical",
                                                             "discrete"};
  auto type = value.find("type");
  if (type == value.end()) {
    return kVertexJson.Error(FieldPath(path, "type"),
                             "required: one of double, integer, categorical, discrete");
  }
  TP_ASSIGN_OR_RETURN(size_t kind, Word(*type, FieldPath(path, "type"), kTypes));
  ParameterSpec parameter;
  parameter.parameter_id = id;
  auto find = [&value](std::string_view key) -> const Json* {
    auto it = value.find(key);
    return it == value.end() ? nullptr : &*it;
  };
  auto required = [&](std::string_view key) -> absl::StatusOr<const Json*> {
    const Json* item = find(key);
    if (item == nullptr || item->is_null()) {
      return kVertexJson.Error(FieldPath(path, key),
                               fmt::format("required for a {} parameter", kTypes[kind]));
    }
    return item;
  };
  switch (kind) {
    case 0: {
      TP_RETURN_IF_ERROR(CheckKeys(value, path, {"min", "max", "scale"}));
      DoubleValueSpec spec;
      TP_ASSIGN_OR_RETURN(const Json* min, required("min"));
      TP_ASSIGN_OR_RETURN(const Json* max, required("max"));
      TP_ASSIGN_OR_RETURN(spec.min_value, internal::DoubleValue(*min, FieldPath(path, "min")));
      TP_ASSIGN_OR_RETURN(spec.max_value, internal::DoubleValue(*max, FieldPath(path, "max")));
      TP_ASSIGN_OR_RETURN(parameter.scale_type, Scale(find("scale"), FieldPath(path, "scale")));
      parameter.value_spec = spec;
      break;
    }
    case 1: {
      TP_RETURN_IF_ERROR(CheckKeys(value, path, {"min", "max", "scale"}));
      IntegerValueSpec spec;
      TP_ASSIGN_OR_RETURN(const Json* min, required("min"));
      TP_ASSIGN_OR_RETURN(const Json* max, required("max"));
      TP_ASSIGN_OR_RETURN(spec.min_value,
                          base::JsonInt64(*min, FieldPath(path, "min"), kVertexJson));
      TP_ASSIGN_OR_RETURN(spec.max_value,
                          base::JsonInt64(*max, FieldPath(path, "max"), kVertexJson));
      TP_ASSIGN_OR_RETURN(parameter.scale_type, Scale(find("scale"), FieldPath(path, "scale")));
      parameter.value_spec = spec;
      break;
    }
    case 2: {
      TP_RETURN_IF_ERROR(CheckKeys(value, path, {"values"}));
      CategoricalValueSpec spec;
      TP_ASSIGN_OR_RETURN(const Json* values, required("values"));
      TP_ASSIGN_OR_RETURN(spec.values, CategoricalValues(*values, FieldPath(path, "values")));
      parameter.value_spec = spec;
      break;
    }
    default: {
      TP_RETURN_IF_ERROR(CheckKeys(value, path, {"values", "scale"}));
      DiscreteValueSpec spec;
      TP_ASSIGN_OR_RETURN(const Json* values, required("values"));
      TP_ASSIGN_OR_RETURN(spec.values, internal::DoubleList(*values, FieldPath(path, "values")));
      TP_ASSIGN_OR_RETURN(parameter.scale_type, Scale(find("scale"), FieldPath(path, "scale")));
      parameter.value_spec = spec;
      break;
    }
  }
  if (const Json* conditionals = find("conditional_parameter_spec")) {
    TP_RETURN_IF_ERROR(
        ReadConditionals(*conditionals, FieldPath(path, "conditional_parameter_spec"), parameter));
  }
  return parameter;
}

}  // namespace

absl::StatusOr<std::vector<MetricSpec>> MetricSpecsFromPythonForm(const Json& metric_spec,
                                                                  std::string_view path) {
  if (!metric_spec.is_object()) {
    return kVertexJson.Error(path, fmt::format("expected a mapping like {{loss: minimize}}, got {}",
                                               DescribeJson(metric_spec)));
  }
  static constexpr std::array<std::string_view, 2> kGoals = {"maximize", "minimize"};
  std::vector<MetricSpec> metrics;
  for (const auto& [metric_id, goal] : metric_spec.items()) {
    TP_ASSIGN_OR_RETURN(size_t index, Word(goal, FieldPath(path, metric_id), kGoals));
    metrics.push_back({metric_id, index == 0 ? GoalType::kMaximize : GoalType::kMinimize});
  }
  return metrics;
}

absl::StatusOr<std::vector<ParameterSpec>> ParameterSpecsFromPythonForm(const Json& parameter_spec,
                                                                        std::string_view path) {
  if (!parameter_spec.is_object()) {
    return kVertexJson.Error(path, fmt::format("expected a mapping of parameter id to spec, got {}",
                                               DescribeJson(parameter_spec)));
  }
  std::vector<ParameterSpec> parameters;
  for (const auto& [id, value] : parameter_spec.items()) {
    TP_ASSIGN_OR_RETURN(ParameterSpec parameter,
                        SpecFromPythonForm(id, value, FieldPath(path, id)));
    parameters.push_back(std::move(parameter));
  }
  return parameters;
}

absl::StatusOr<SearchAlgorithm> SearchAlgorithmFromPythonForm(const Json& value,
                                                              std::string_view path) {
  if (value.is_null()) return SearchAlgorithm::kUnspecified;
  static constexpr std::array<std::string_view, 2> kWords = {"grid", "random"};
  TP_ASSIGN_OR_RETURN(size_t index, Word(value, path, kWords));
  return index == 0 ? SearchAlgorithm::kGridSearch : SearchAlgorithm::kRandomSearch;
}

absl::StatusOr<MeasurementSelection> MeasurementSelectionFromPythonForm(const Json& value,
                                                                        std::string_view path) {
  static constexpr std::array<std::string_view, 2> kWords = {"best", "last"};
  TP_ASSIGN_OR_RETURN(size_t index, Word(value, path, kWords));
  return index == 0 ? MeasurementSelection::kBest : MeasurementSelection::kLast;
}

}  // namespace trainpkg::jobspec
