// HyperparameterTuningJob / Trial <-> proto3 JSON
// (hyperparameter_tuning_job_json.h).
#include "jobspec/hyperparameter_tuning_job_json.h"

#include <array>
#include <string>
#include <utility>

#include "base/json_describe.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/internal/study_enums.h"
#include "jobspec/internal/study_json_values.h"
#include "jobspec/internal/vertex_json.h"
#include "jobspec/study_spec_json.h"

namespace trainpkg::jobspec {
namespace {

using base::DescribeJson;
using base::JsonFields;
using base::JsonObjectReader;
using internal::kVertexJson;
using internal::ReadDuration;
using internal::ReadTimestamp;
using Json = nlohmann::json;

// The fields a tuning job shares with a CustomJob (same names, same JSON
// forms). They are written and read through the CustomJob functions so both
// resources agree on them.
constexpr std::array<std::string_view, 10> kEnvelopeFields = {
    "name",    "displayName", "state", "createTime", "startTime",
    "endTime", "updateTime",  "error", "labels",     "encryptionSpec"};

CustomJob EnvelopeOf(const HyperparameterTuningJob& job) {
  CustomJob envelope;
  envelope.name = job.name;
  envelope.display_name = job.display_name;
  envelope.state = job.state;
  envelope.create_time = job.create_time;
  envelope.start_time = job.start_time;
  envelope.end_time = job.end_time;
  envelope.update_time = job.update_time;
  envelope.error = job.error;
  envelope.labels = job.labels;
  envelope.encryption_spec_kms_key_name = job.encryption_spec_kms_key_name;
  return envelope;
}

void SetEnvelope(const CustomJob& envelope, HyperparameterTuningJob& job) {
  job.name = envelope.name;
  job.display_name = envelope.display_name;
  job.state = envelope.state;
  job.create_time = envelope.create_time;
  job.start_time = envelope.start_time;
  job.end_time = envelope.end_time;
  job.update_time = envelope.update_time;
  job.error = envelope.error;
  job.labels = envelope.labels;
  job.encryption_spec_kms_key_name = envelope.encryption_spec_kms_key_name;
}

bool IsEnvelopeField(std::string_view key) {
  for (std::string_view field : kEnvelopeFields) {
    if (key == field) return true;
  }
  // snake_case spellings of the two-word fields.
  return key == "display_name" || key == "create_time" || key == "start_time" ||
         key == "end_time" || key == "update_time" || key == "encryption_spec";
}

Json ParameterValueToJson(const ParameterValueType& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  return std::get<double>(value);
}

absl::StatusOr<TrialParameter> TrialParameterFromJson(const Json& value, const std::string& path) {
  static const JsonFields kFields{{"parameterId", "value"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, path, kVertexJson, kFields));
  TrialParameter parameter;
  TP_RETURN_IF_ERROR(reader.ReadString("parameterId", &parameter.parameter_id));
  const Json* parameter_value = reader.Find("value");
  if (parameter_value == nullptr) {
    return kVertexJson.Error(reader.PathOf("value"), "required: a number or a string");
  }
  if (parameter_value->is_number()) {
    parameter.value = parameter_value->get<double>();
  } else if (parameter_value->is_string()) {
    parameter.value = parameter_value->get<std::string>();
  } else {
    return kVertexJson.Error(
        reader.PathOf("value"),
        fmt::format("expected a number or a string, got {}", DescribeJson(*parameter_value)));
  }
  return parameter;
}

absl::StatusOr<MeasurementMetric> MetricFromJson(const Json& value, const std::string& path) {
  static const JsonFields kFields{{"metricId", "value"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, path, kVertexJson, kFields));
  MeasurementMetric metric;
  TP_RETURN_IF_ERROR(reader.ReadString("metricId", &metric.metric_id));
  TP_RETURN_IF_ERROR(internal::ReadDouble(reader, "value", &metric.value));
  return metric;
}

}  // namespace

Json MeasurementToJson(const Measurement& measurement) {
  Json object = Json::object();
  if (measurement.elapsed_duration) {
    object["elapsedDuration"] = jobspec::FormatDuration(*measurement.elapsed_duration);
  }
  if (measurement.step_count != 0)
    object["stepCount"] = internal::Int64Json(measurement.step_count);
  if (!measurement.metrics.empty()) {
    Json metrics = Json::array();
    for (const MeasurementMetric& metric : measurement.metrics) {
      metrics.push_back({{"metricId", metric.metric_id}, {"value", metric.value}});
    }
    object["metrics"] = std::move(metrics);
  }
  return object;
}

Json TrialToJson(const Trial& trial) {
  Json object = Json::object();
  if (!trial.id.empty()) object["id"] = trial.id;
  if (trial.state != TrialState::kUnspecified) {
    object["state"] = std::string(TrialStateName(trial.state));
  }
  if (!trial.parameters.empty()) {
    Json parameters = Json::array();
    for (const TrialParameter& parameter : trial.parameters) {
      parameters.push_back({{"parameterId", parameter.parameter_id},
                            {"value", ParameterValueToJson(parameter.value)}});
    }
    object["parameters"] = std::move(parameters);
  }
  if (trial.final_measurement)
    object["finalMeasurement"] = MeasurementToJson(*trial.final_measurement);
  if (!trial.measurements.empty()) {
    Json measurements = Json::array();
    for (const Measurement& measurement : trial.measurements) {
      measurements.push_back(MeasurementToJson(measurement));
    }
    object["measurements"] = std::move(measurements);
  }
  if (trial.start_time) object["startTime"] = FormatTimestamp(*trial.start_time);
  if (trial.end_time) object["endTime"] = FormatTimestamp(*trial.end_time);
  if (!trial.custom_job.empty()) object["customJob"] = trial.custom_job;
  if (!trial.infeasible_reason.empty()) object["infeasibleReason"] = trial.infeasible_reason;
  if (!trial.web_access_uris.empty()) object["webAccessUris"] = trial.web_access_uris;
  return object;
}

Json HyperparameterTuningJobToJson(const HyperparameterTuningJob& job) {
  Json object = CustomJobToJson(EnvelopeOf(job));
  object.erase("jobSpec");
  object["studySpec"] = StudySpecToJson(job.study_spec);
  if (job.max_trial_count != 0) object["maxTrialCount"] = job.max_trial_count;
  if (job.parallel_trial_count != 0) object["parallelTrialCount"] = job.parallel_trial_count;
  if (job.max_failed_trial_count != 0) object["maxFailedTrialCount"] = job.max_failed_trial_count;
  object["trialJobSpec"] = CustomJobSpecToJson(job.trial_job_spec);
  if (!job.trials.empty()) {
    Json trials = Json::array();
    for (const Trial& trial : job.trials) trials.push_back(TrialToJson(trial));
    object["trials"] = std::move(trials);
  }
  return object;
}

absl::StatusOr<Measurement> MeasurementFromJson(const Json& value, std::string_view path) {
  static const JsonFields kFields{{"elapsedDuration", "stepCount", "metrics"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::string(path), kVertexJson, kFields));
  Measurement measurement;
  TP_RETURN_IF_ERROR(ReadDuration(reader, "elapsedDuration", &measurement.elapsed_duration));
  TP_RETURN_IF_ERROR(reader.ReadInt64("stepCount", &measurement.step_count));
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("metrics", [&measurement](const Json& item, const std::string& at) {
        TP_ASSIGN_OR_RETURN(MeasurementMetric metric, MetricFromJson(item, at));
        measurement.metrics.push_back(std::move(metric));
        return absl::OkStatus();
      }));
  return measurement;
}

absl::StatusOr<Trial> TrialFromJson(const Json& value, std::string_view path) {
  static const JsonFields kFields{
      .known = {"id", "state", "parameters", "finalMeasurement", "measurements", "startTime",
                "endTime", "customJob", "infeasibleReason", "webAccessUris"},
      .ignored = {"name", "clientId"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::string(path), kVertexJson, kFields));
  Trial trial;
  TP_RETURN_IF_ERROR(reader.ReadString("id", &trial.id));
  int state = 0;
  TP_RETURN_IF_ERROR(internal::ReadStrictEnum(reader, "state", internal::TrialStateEnum(), &state));
  trial.state = static_cast<TrialState>(state);
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("parameters", [&trial](const Json& item, const std::string& at) {
        TP_ASSIGN_OR_RETURN(TrialParameter parameter, TrialParameterFromJson(item, at));
        trial.parameters.push_back(std::move(parameter));
        return absl::OkStatus();
      }));
  if (const Json* final_measurement = reader.Find("finalMeasurement")) {
    TP_ASSIGN_OR_RETURN(trial.final_measurement,
                        MeasurementFromJson(*final_measurement, reader.PathOf("finalMeasurement")));
  }
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("measurements", [&trial](const Json& item, const std::string& at) {
        TP_ASSIGN_OR_RETURN(Measurement measurement, MeasurementFromJson(item, at));
        trial.measurements.push_back(std::move(measurement));
        return absl::OkStatus();
      }));
  TP_RETURN_IF_ERROR(ReadTimestamp(reader, "startTime", &trial.start_time));
  TP_RETURN_IF_ERROR(ReadTimestamp(reader, "endTime", &trial.end_time));
  TP_RETURN_IF_ERROR(reader.ReadString("customJob", &trial.custom_job));
  TP_RETURN_IF_ERROR(reader.ReadString("infeasibleReason", &trial.infeasible_reason));
  TP_RETURN_IF_ERROR(reader.ReadStringMap("webAccessUris", &trial.web_access_uris));
  return trial;
}

absl::StatusOr<HyperparameterTuningJob> HyperparameterTuningJobFromJson(const Json& value,
                                                                        std::string_view path) {
  if (!value.is_object()) {
    return kVertexJson.Error(path, fmt::format("expected an object, got {}", DescribeJson(value)));
  }
  // The envelope fields go through CustomJobFromJson; the rest is read here.
  Json envelope = Json::object();
  Json rest = Json::object();
  for (const auto& [key, item] : value.items()) {
    (IsEnvelopeField(key) ? envelope : rest)[key] = item;
  }
  static const JsonFields kFields{.known = {"studySpec", "maxTrialCount", "parallelTrialCount",
                                            "maxFailedTrialCount", "trialJobSpec", "trials"},
                                  .ignored = {"satisfiesPzs", "satisfiesPzi"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(rest, std::string(path), kVertexJson, kFields));
  HyperparameterTuningJob job;
  TP_ASSIGN_OR_RETURN(CustomJob envelope_job, CustomJobFromJson(envelope, path));
  SetEnvelope(envelope_job, job);
  if (const Json* study = reader.Find("studySpec")) {
    TP_ASSIGN_OR_RETURN(job.study_spec, StudySpecFromJson(*study, reader.PathOf("studySpec")));
  }
  TP_RETURN_IF_ERROR(reader.ReadInt32("maxTrialCount", &job.max_trial_count));
  TP_RETURN_IF_ERROR(reader.ReadInt32("parallelTrialCount", &job.parallel_trial_count));
  TP_RETURN_IF_ERROR(reader.ReadInt32("maxFailedTrialCount", &job.max_failed_trial_count));
  if (const Json* spec = reader.Find("trialJobSpec")) {
    TP_ASSIGN_OR_RETURN(job.trial_job_spec,
                        CustomJobSpecFromJson(*spec, reader.PathOf("trialJobSpec")));
  }
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("trials", [&job](const Json& item, const std::string& at) {
        TP_ASSIGN_OR_RETURN(Trial trial, TrialFromJson(item, at));
        job.trials.push_back(std::move(trial));
        return absl::OkStatus();
      }));
  return job;
}

absl::StatusOr<HyperparameterTuningJob> ParseHyperparameterTuningJobJson(std::string_view text) {
  TP_ASSIGN_OR_RETURN(Json parsed, base::ParseJson(text));
  return HyperparameterTuningJobFromJson(parsed);
}

std::string FormatHyperparameterTuningJobJson(const HyperparameterTuningJob& job) {
  return HyperparameterTuningJobToJson(job).dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace trainpkg::jobspec
