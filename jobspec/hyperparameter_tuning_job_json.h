// HyperparameterTuningJob and Trial <-> JSON, following Vertex AI REST v1 and
// the proto3 JSON mapping (see custom_job_json.h for the conventions: output
// lowerCamelCase, int64 as strings, enums by name, defaults omitted; input
// either spelling, int64 as number or string, enums by name or number,
// errors InvalidArgument prefixed with the JSON path).
//
// Trial parameter values are google.protobuf.Value: a JSON number or string.
#ifndef TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_JSON_H_
#define TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec {

nlohmann::json HyperparameterTuningJobToJson(const HyperparameterTuningJob& job);
nlohmann::json TrialToJson(const Trial& trial);
nlohmann::json MeasurementToJson(const Measurement& measurement);

absl::StatusOr<HyperparameterTuningJob> HyperparameterTuningJobFromJson(const nlohmann::json& json,
                                                                        std::string_view path = "");
absl::StatusOr<Trial> TrialFromJson(const nlohmann::json& json, std::string_view path);
absl::StatusOr<Measurement> MeasurementFromJson(const nlohmann::json& json, std::string_view path);

// Parses JSON text; syntax errors name the line and column.
absl::StatusOr<HyperparameterTuningJob> ParseHyperparameterTuningJobJson(std::string_view text);

// Pretty (2-space indent) JSON text of the job.
std::string FormatHyperparameterTuningJobJson(const HyperparameterTuningJob& job);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_JSON_H_
