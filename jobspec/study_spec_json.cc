// StudySpec <-> proto3 JSON (study_spec_json.h).
#include "jobspec/study_spec_json.h"

#include <string>
#include <utility>

#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/internal/study_enums.h"
#include "jobspec/internal/study_json_values.h"
#include "jobspec/internal/vertex_json.h"

namespace trainpkg::jobspec {
namespace {

using base::DescribeJson;
using base::JsonFields;
using base::JsonObjectReader;
using internal::Int64Json;
using internal::kVertexJson;
using Json = nlohmann::json;

// ---- To JSON ----

Json Int64ListJson(const std::vector<int64_t>& values) {
  Json list = Json::array();
  for (int64_t value : values) list.push_back(Int64Json(value));
  return list;
}

void ValueSpecToJson(const ParameterValueSpec& spec, Json& parameter) {
  if (const auto* d = std::get_if<DoubleValueSpec>(&spec)) {
    Json object = {{"minValue", d->min_value}, {"maxValue", d->max_value}};
    if (d->default_value) object["defaultValue"] = *d->default_value;
    parameter["doubleValueSpec"] = std::move(object);
  } else if (const auto* i = std::get_if<IntegerValueSpec>(&spec)) {
    Json object = {{"minValue", Int64Json(i->min_value)}, {"maxValue", Int64Json(i->max_value)}};
    if (i->default_value) object["defaultValue"] = Int64Json(*i->default_value);
    parameter["integerValueSpec"] = std::move(object);
  } else if (const auto* c = std::get_if<CategoricalValueSpec>(&spec)) {
    Json object = {{"values", c->values}};
    if (c->default_value) object["defaultValue"] = *c->default_value;
    parameter["categoricalValueSpec"] = std::move(object);
  } else if (const auto* v = std::get_if<DiscreteValueSpec>(&spec)) {
    Json object = {{"values", v->values}};
    if (v->default_value) object["defaultValue"] = *v->default_value;
    parameter["discreteValueSpec"] = std::move(object);
  }
}

void ParentValuesToJson(const ParentValueCondition& condition, Json& object) {
  if (const auto* d = std::get_if<ParentDiscreteValues>(&condition)) {
    object["parentDiscreteValues"] = {{"values", d->values}};
  } else if (const auto* i = std::get_if<ParentIntValues>(&condition)) {
    object["parentIntValues"] = {{"values", Int64ListJson(i->values)}};
  } else if (const auto* c = std::get_if<ParentCategoricalValues>(&condition)) {
    object["parentCategoricalValues"] = {{"values", c->values}};
  }
}

// ---- From JSON ----

absl::StatusOr<DoubleValueSpec> DoubleValueSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"minValue", "maxValue", "defaultValue"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  DoubleValueSpec spec;
  TP_RETURN_IF_ERROR(internal::ReadDouble(reader, "minValue", &spec.min_value));
  TP_RETURN_IF_ERROR(internal::ReadDouble(reader, "maxValue", &spec.max_value));
  TP_RETURN_IF_ERROR(internal::ReadOptionalDouble(reader, "defaultValue", &spec.default_value));
  return spec;
}

absl::StatusOr<IntegerValueSpec> IntegerValueSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"minValue", "maxValue", "defaultValue"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  IntegerValueSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadInt64("minValue", &spec.min_value));
  TP_RETURN_IF_ERROR(reader.ReadInt64("maxValue", &spec.max_value));
  TP_RETURN_IF_ERROR(internal::ReadOptionalInt64(reader, "defaultValue", &spec.default_value));
  return spec;
}

absl::StatusOr<CategoricalValueSpec> CategoricalValueSpecFromJson(const Json& value,
                                                                  std::string path) {
  static const JsonFields kFields{{"values", "defaultValue"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  CategoricalValueSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadStringList("values", &spec.values));
  TP_RETURN_IF_ERROR(internal::ReadOptionalString(reader, "defaultValue", &spec.default_value));
  return spec;
}

absl::StatusOr<DiscreteValueSpec> DiscreteValueSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"values", "defaultValue"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  DiscreteValueSpec spec;
  if (const Json* values = reader.Find("values")) {
    TP_ASSIGN_OR_RETURN(spec.values, internal::DoubleList(*values, reader.PathOf("values")));
  }
  TP_RETURN_IF_ERROR(internal::ReadOptionalDouble(reader, "defaultValue", &spec.default_value));
  return spec;
}

// The `values` list of a parent*Values message.
absl::StatusOr<Json> ParentValuesList(const Json& value, std::string path) {
  static const JsonFields kFields{{"values"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  const Json* values = reader.Find("values");
  return values == nullptr ? Json::array() : *values;
}

// Reads one member of a oneof, failing when another member was already set.
absl::Status CheckOneof(bool already_set, const JsonObjectReader& reader, std::string_view name,
                        std::string_view members) {
  if (!already_set) return absl::OkStatus();
  return kVertexJson.Error(reader.PathOf(name), fmt::format("only one of {} may be set", members));
}

absl::StatusOr<ParentValueCondition> ParentConditionFromJson(const JsonObjectReader& reader) {
  constexpr std::string_view kMembers =
      "parentDiscreteValues, parentIntValues and parentCategoricalValues";
  ParentValueCondition condition;
  if (const Json* value = reader.Find("parentDiscreteValues")) {
    const std::string path = reader.PathOf("parentDiscreteValues");
    TP_ASSIGN_OR_RETURN(Json list, ParentValuesList(*value, path));
    TP_ASSIGN_OR_RETURN(std::vector<double> values,
                        internal::DoubleList(list, base::FieldPath(path, "values")));
    condition = ParentDiscreteValues{std::move(values)};
  }
  if (const Json* value = reader.Find("parentIntValues")) {
    TP_RETURN_IF_ERROR(CheckOneof(condition.index() != 0, reader, "parentIntValues", kMembers));
    const std::string path = reader.PathOf("parentIntValues");
    TP_ASSIGN_OR_RETURN(Json list, ParentValuesList(*value, path));
    TP_ASSIGN_OR_RETURN(std::vector<int64_t> values,
                        internal::Int64List(list, base::FieldPath(path, "values")));
    condition = ParentIntValues{std::move(values)};
  }
  if (const Json* value = reader.Find("parentCategoricalValues")) {
    TP_RETURN_IF_ERROR(
        CheckOneof(condition.index() != 0, reader, "parentCategoricalValues", kMembers));
    const std::string path = reader.PathOf("parentCategoricalValues");
    TP_ASSIGN_OR_RETURN(Json list, ParentValuesList(*value, path));
    const std::string values_path = base::FieldPath(path, "values");
    if (!list.is_array()) {
      return kVertexJson.Error(
          values_path, fmt::format("expected a list of strings, got {}", DescribeJson(list)));
    }
    std::vector<std::string> values;
    for (size_t i = 0; i < list.size(); ++i) {
      TP_ASSIGN_OR_RETURN(std::string text,
                          base::JsonString(list[i], base::IndexPath(values_path, i), kVertexJson));
      values.push_back(std::move(text));
    }
    condition = ParentCategoricalValues{std::move(values)};
  }
  return condition;
}

absl::StatusOr<ConditionalParameterSpec> ConditionalFromJson(const Json& value,
                                                             const std::string& path) {
  static const JsonFields kFields{
      {"parameterSpec", "parentDiscreteValues", "parentIntValues", "parentCategoricalValues"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, path, kVertexJson, kFields));
  ConditionalParameterSpec conditional;
  TP_ASSIGN_OR_RETURN(conditional.parent_values, ParentConditionFromJson(reader));
  const Json* spec = reader.Find("parameterSpec");
  if (spec == nullptr) {
    return kVertexJson.Error(reader.PathOf("parameterSpec"),
                             "required: the child parameter's spec");
  }
  TP_ASSIGN_OR_RETURN(conditional.parameter_spec,
                      ParameterSpecFromJson(*spec, reader.PathOf("parameterSpec")));
  return conditional;
}

absl::StatusOr<MetricSpec> MetricSpecFromJson(const Json& value, const std::string& path) {
  static const JsonFields kFields{.known = {"metricId", "goal"}, .unsupported = {"safetyConfig"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, path, kVertexJson, kFields));
  MetricSpec metric;
  TP_RETURN_IF_ERROR(reader.ReadString("metricId", &metric.metric_id));
  int goal = 0;
  TP_RETURN_IF_ERROR(internal::ReadStrictEnum(reader, "goal", internal::GoalTypeEnum(), &goal));
  metric.goal = static_cast<GoalType>(goal);
  return metric;
}

template <typename Spec>
absl::Status ReadStoppingSpec(const JsonObjectReader& reader, std::string_view name,
                              std::optional<Spec>* out) {
  const Json* value = reader.Find(name);
  if (value == nullptr) return absl::OkStatus();
  static const JsonFields kFields{{"useElapsedDuration"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader spec_reader,
                      JsonObjectReader::Create(*value, reader.PathOf(name), kVertexJson, kFields));
  Spec spec;
  TP_RETURN_IF_ERROR(spec_reader.ReadBool("useElapsedDuration", &spec.use_elapsed_duration));
  *out = spec;
  return absl::OkStatus();
}

}  // namespace

Json ParameterSpecToJson(const ParameterSpec& parameter) {
  Json object = Json::object();
  if (!parameter.parameter_id.empty()) object["parameterId"] = parameter.parameter_id;
  ValueSpecToJson(parameter.value_spec, object);
  if (parameter.scale_type != ScaleType::kUnspecified) {
    object["scaleType"] = std::string(ScaleTypeName(parameter.scale_type));
  }
  if (!parameter.conditional_parameter_specs.empty()) {
    Json list = Json::array();
    for (const ConditionalParameterSpec& child : parameter.conditional_parameter_specs) {
      Json item = Json::object();
      ParentValuesToJson(child.parent_values, item);
      item["parameterSpec"] = ParameterSpecToJson(child.parameter_spec);
      list.push_back(std::move(item));
    }
    object["conditionalParameterSpecs"] = std::move(list);
  }
  return object;
}

Json StudySpecToJson(const StudySpec& spec) {
  Json object = Json::object();
  Json metrics = Json::array();
  for (const MetricSpec& metric : spec.metrics) {
    Json item = Json::object();
    if (!metric.metric_id.empty()) item["metricId"] = metric.metric_id;
    if (metric.goal != GoalType::kUnspecified)
      item["goal"] = std::string(GoalTypeName(metric.goal));
    metrics.push_back(std::move(item));
  }
  if (!metrics.empty()) object["metrics"] = std::move(metrics);
  Json parameters = Json::array();
  for (const ParameterSpec& parameter : spec.parameters) {
    parameters.push_back(ParameterSpecToJson(parameter));
  }
  if (!parameters.empty()) object["parameters"] = std::move(parameters);
  if (spec.algorithm != SearchAlgorithm::kUnspecified) {
    object["algorithm"] = std::string(SearchAlgorithmName(spec.algorithm));
  }
  if (spec.measurement_selection_type != MeasurementSelection::kUnspecified) {
    object["measurementSelectionType"] =
        std::string(MeasurementSelectionName(spec.measurement_selection_type));
  }
  auto stopping = [](bool use_elapsed_duration) {
    Json item = Json::object();
    if (use_elapsed_duration) item["useElapsedDuration"] = true;
    return item;
  };
  if (spec.decay_curve_stopping_spec) {
    object["decayCurveStoppingSpec"] =
        stopping(spec.decay_curve_stopping_spec->use_elapsed_duration);
  }
  if (spec.median_automated_stopping_spec) {
    object["medianAutomatedStoppingSpec"] =
        stopping(spec.median_automated_stopping_spec->use_elapsed_duration);
  }
  return object;
}

absl::StatusOr<ParameterSpec> ParameterSpecFromJson(const Json& json_value, std::string_view path) {
  static const JsonFields kFields{{"parameterId", "doubleValueSpec", "integerValueSpec",
                                   "categoricalValueSpec", "discreteValueSpec", "scaleType",
                                   "conditionalParameterSpecs"}};
  constexpr std::string_view kMembers =
      "doubleValueSpec, integerValueSpec, categoricalValueSpec and discreteValueSpec";
  TP_ASSIGN_OR_RETURN(
      JsonObjectReader reader,
      JsonObjectReader::Create(json_value, std::string(path), kVertexJson, kFields));
  ParameterSpec parameter;
  TP_RETURN_IF_ERROR(reader.ReadString("parameterId", &parameter.parameter_id));
  auto read_member = [&](std::string_view name, auto read) -> absl::Status {
    const Json* value = reader.Find(name);
    if (value == nullptr) return absl::OkStatus();
    TP_RETURN_IF_ERROR(CheckOneof(parameter.value_spec.index() != 0, reader, name, kMembers));
    TP_ASSIGN_OR_RETURN(auto spec, read(*value, reader.PathOf(name)));
    parameter.value_spec = std::move(spec);
    return absl::OkStatus();
  };
  TP_RETURN_IF_ERROR(read_member("doubleValueSpec", DoubleValueSpecFromJson));
  TP_RETURN_IF_ERROR(read_member("integerValueSpec", IntegerValueSpecFromJson));
  TP_RETURN_IF_ERROR(read_member("categoricalValueSpec", CategoricalValueSpecFromJson));
  TP_RETURN_IF_ERROR(read_member("discreteValueSpec", DiscreteValueSpecFromJson));
  int scale = 0;
  TP_RETURN_IF_ERROR(
      internal::ReadStrictEnum(reader, "scaleType", internal::ScaleTypeEnum(), &scale));
  parameter.scale_type = static_cast<ScaleType>(scale);
  TP_RETURN_IF_ERROR(reader.ForEachElement(
      "conditionalParameterSpecs", [&parameter](const Json& value, const std::string& at) {
        TP_ASSIGN_OR_RETURN(ConditionalParameterSpec child, ConditionalFromJson(value, at));
        parameter.conditional_parameter_specs.push_back(std::move(child));
        return absl::OkStatus();
      }));
  return parameter;
}

absl::StatusOr<StudySpec> StudySpecFromJson(const Json& json_value, std::string_view path) {
  static const JsonFields kFields{
      .known = {"metrics", "parameters", "algorithm", "measurementSelectionType",
                "decayCurveStoppingSpec", "medianAutomatedStoppingSpec"},
      .unsupported = {"convexAutomatedStoppingSpec", "studyStoppingConfig", "observationNoise"}};
  TP_ASSIGN_OR_RETURN(
      JsonObjectReader reader,
      JsonObjectReader::Create(json_value, std::string(path), kVertexJson, kFields));
  StudySpec spec;
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("metrics", [&spec](const Json& value, const std::string& at) {
        TP_ASSIGN_OR_RETURN(MetricSpec metric, MetricSpecFromJson(value, at));
        spec.metrics.push_back(std::move(metric));
        return absl::OkStatus();
      }));
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("parameters", [&spec](const Json& value, const std::string& at) {
        TP_ASSIGN_OR_RETURN(ParameterSpec parameter, ParameterSpecFromJson(value, at));
        spec.parameters.push_back(std::move(parameter));
        return absl::OkStatus();
      }));
  int algorithm = 0;
  TP_RETURN_IF_ERROR(
      internal::ReadStrictEnum(reader, "algorithm", internal::AlgorithmEnum(), &algorithm));
  spec.algorithm = static_cast<SearchAlgorithm>(algorithm);
  int selection = 0;
  TP_RETURN_IF_ERROR(internal::ReadStrictEnum(
      reader, "measurementSelectionType", internal::MeasurementSelectionTypeEnum(), &selection));
  spec.measurement_selection_type = static_cast<MeasurementSelection>(selection);
  TP_RETURN_IF_ERROR(
      ReadStoppingSpec(reader, "decayCurveStoppingSpec", &spec.decay_curve_stopping_spec));
  TP_RETURN_IF_ERROR(ReadStoppingSpec(reader, "medianAutomatedStoppingSpec",
                                      &spec.median_automated_stopping_spec));
  if (spec.decay_curve_stopping_spec && spec.median_automated_stopping_spec) {
    return kVertexJson.Error(
        reader.PathOf("medianAutomatedStoppingSpec"),
        "only one of decayCurveStoppingSpec and medianAutomatedStoppingSpec may be "
        "set");
  }
  return spec;
}

}  // namespace trainpkg::jobspec
