#include "jobspec/internal/study_json_values.h"

#include <limits>
#include <string>

#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/internal/parse_number.h"
#include "jobspec/internal/study_enums.h"

namespace trainpkg::jobspec::internal {

absl::StatusOr<double> DoubleValue(const nlohmann::json& json, std::string_view path) {
  if (json.is_number()) return json.get<double>();
  if (json.is_string()) {
    const std::string& text = json.get_ref<const std::string&>();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (std::optional<double> value = ParseNumber<double>(text)) return *value;
  }
  return kVertexJson.Error(path,
                           fmt::format("expected a number, got {}", base::DescribeJson(json)));
}

absl::StatusOr<std::vector<double>> DoubleList(const nlohmann::json& json, std::string_view path) {
  if (!json.is_array()) {
    return kVertexJson.Error(
        path, fmt::format("expected a list of numbers, got {}", base::DescribeJson(json)));
  }
  std::vector<double> values;
  for (size_t i = 0; i < json.size(); ++i) {
    TP_ASSIGN_OR_RETURN(double value, DoubleValue(json[i], base::IndexPath(path, i)));
    values.push_back(value);
  }
  return values;
}

absl::StatusOr<std::vector<int64_t>> Int64List(const nlohmann::json& json, std::string_view path) {
  if (!json.is_array()) {
    return kVertexJson.Error(
        path, fmt::format("expected a list of integers, got {}", base::DescribeJson(json)));
  }
  std::vector<int64_t> values;
  for (size_t i = 0; i < json.size(); ++i) {
    TP_ASSIGN_OR_RETURN(int64_t value,
                        base::JsonInt64(json[i], base::IndexPath(path, i), kVertexJson));
    values.push_back(value);
  }
  return values;
}

absl::Status ReadDouble(const base::JsonObjectReader& reader, std::string_view name, double* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, DoubleValue(*json, reader.PathOf(name)));
  return absl::OkStatus();
}

absl::Status ReadOptionalDouble(const base::JsonObjectReader& reader, std::string_view name,
                                std::optional<double>* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, DoubleValue(*json, reader.PathOf(name)));
  return absl::OkStatus();
}

absl::Status ReadOptionalInt64(const base::JsonObjectReader& reader, std::string_view name,
                               std::optional<int64_t>* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, base::JsonInt64(*json, reader.PathOf(name), kVertexJson));
  return absl::OkStatus();
}

absl::Status ReadOptionalString(const base::JsonObjectReader& reader, std::string_view name,
                                std::optional<std::string>* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, base::JsonString(*json, reader.PathOf(name), kVertexJson));
  return absl::OkStatus();
}

absl::Status ReadStrictEnum(const base::JsonObjectReader& reader, std::string_view name,
                            const ProtoEnum& proto_enum, int* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, StrictEnumNumber(*json, reader.PathOf(name), proto_enum));
  return absl::OkStatus();
}

}  // namespace trainpkg::jobspec::internal
