// JSON number and list readers the study model needs beyond
// base/json_object_reader.h: doubles (proto3 JSON also allows "1.5", "NaN",
// "Infinity" as strings) and lists of doubles / int64.
#ifndef TRAINPKG_JOBSPEC_INTERNAL_STUDY_JSON_VALUES_H_
#define TRAINPKG_JOBSPEC_INTERNAL_STUDY_JSON_VALUES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/internal/vertex_json.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec::internal {

absl::StatusOr<double> DoubleValue(const nlohmann::json& json, std::string_view path);
absl::StatusOr<std::vector<double>> DoubleList(const nlohmann::json& json, std::string_view path);
absl::StatusOr<std::vector<int64_t>> Int64List(const nlohmann::json& json, std::string_view path);

// Field readers in the base::JsonObjectReader style: `*out` is unchanged when the
// field is absent or null.
absl::Status ReadDouble(const base::JsonObjectReader& reader, std::string_view name, double* out);
absl::Status ReadOptionalDouble(const base::JsonObjectReader& reader, std::string_view name,
                                std::optional<double>* out);
absl::Status ReadOptionalInt64(const base::JsonObjectReader& reader, std::string_view name,
                               std::optional<int64_t>* out);
absl::Status ReadOptionalString(const base::JsonObjectReader& reader, std::string_view name,
                                std::optional<std::string>* out);
absl::Status ReadStrictEnum(const base::JsonObjectReader& reader, std::string_view name,
                            const ProtoEnum& proto_enum, int* out);

// An int64 as proto3 JSON writes it: a string of digits.
inline nlohmann::json Int64Json(int64_t value) { return std::to_string(value); }

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_STUDY_JSON_VALUES_H_
