// StudySpec <-> JSON, following Vertex AI REST v1 and the proto3 JSON
// mapping, in the same style as custom_job_json.h.
//
// Output: lowerCamelCase names, int64 as JSON strings ("minValue": "4"),
// enums by name, default (zero/empty) fields omitted.
// Input: lowerCamelCase or snake_case names; int64 as numbers or strings of
// digits; enums by name or number; unknown fields rejected with a
// suggestion. Vertex fields trainpkg cannot honour (convexAutomatedStoppingSpec,
// studyStoppingConfig, observationNoise, metrics[].safetyConfig) are rejected
// saying so. Every error is InvalidArgument starting with the JSON path,
// e.g. "studySpec.parameters[2].doubleValueSpec.minValue: ...".
#ifndef TRAINPKG_JOBSPEC_STUDY_SPEC_JSON_H_
#define TRAINPKG_JOBSPEC_STUDY_SPEC_JSON_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/study_spec.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec {

nlohmann::json StudySpecToJson(const StudySpec& spec);
nlohmann::json ParameterSpecToJson(const ParameterSpec& parameter);

// `path` is the JSON path prefix used in error messages ("" for the root).
absl::StatusOr<StudySpec> StudySpecFromJson(const nlohmann::json& json, std::string_view path = "");
absl::StatusOr<ParameterSpec> ParameterSpecFromJson(const nlohmann::json& json,
                                                    std::string_view path);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_STUDY_SPEC_JSON_H_
