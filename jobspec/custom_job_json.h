// CustomJob <-> JSON, following Vertex AI REST v1 and the proto3 JSON mapping.
//
// Output: lowerCamelCase names, int64 as JSON strings ("replicaCount": "2"),
// enums by name, Durations as "3600s", Timestamps as RFC 3339 UTC, default
// (zero/empty) fields omitted, placeholder pools as {}.
// Input: lowerCamelCase or the proto's snake_case names (what the Python SDK's
// dicts use); int64/int32 as numbers or strings of digits; enums by name or
// number; unknown fields rejected with a suggestion when a known field is
// close. Every error is InvalidArgument and starts with the JSON path of the
// offending field, e.g. "jobSpec.workerPoolSpecs[1].replicaCount: ...".
#ifndef TRAINPKG_JOBSPEC_CUSTOM_JOB_JSON_H_
#define TRAINPKG_JOBSPEC_CUSTOM_JOB_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec {

nlohmann::json CustomJobToJson(const CustomJob& job);
nlohmann::json CustomJobSpecToJson(const CustomJobSpec& spec);
nlohmann::json WorkerPoolSpecToJson(const WorkerPoolSpec& pool);

// `path` is the JSON path prefix used in error messages ("" for the root).
absl::StatusOr<CustomJob> CustomJobFromJson(const nlohmann::json& json, std::string_view path = "");
absl::StatusOr<CustomJobSpec> CustomJobSpecFromJson(const nlohmann::json& json,
                                                    std::string_view path = "");
absl::StatusOr<WorkerPoolSpec> WorkerPoolSpecFromJson(const nlohmann::json& json,
                                                      std::string_view path);

// Parses JSON text; syntax errors name the line and column.
absl::StatusOr<CustomJob> ParseCustomJobJson(std::string_view text);

// Pretty (2-space indent) JSON text of the job.
std::string FormatCustomJobJson(const CustomJob& job);

// Proto3 JSON Duration and Timestamp forms.
std::string FormatDuration(absl::Duration d);                       // "3600s", "1.500s"
absl::StatusOr<absl::Duration> ParseDuration(std::string_view text);  // "3600s", "0.5s"
std::string FormatTimestamp(absl::Time t);                          // "2026-11-22T02:00:00.123Z"
absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_CUSTOM_JOB_JSON_H_
