#include "jobspec/internal/json_object_reader.h"

#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/internal/parse_number.h"

namespace trainpkg::jobspec::internal {
namespace {

using base::DescribeJson;

// "bootDiskSizeGb" -> "boot_disk_size_gb".
std::string SnakeCase(std::string_view camel) {
  std::string snake;
  for (char c : camel) {
    if (absl::ascii_isupper(static_cast<unsigned char>(c))) {
      snake.push_back('_');
      snake.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
    } else {
      snake.push_back(c);
    }
  }
  return snake;
}

// The lowerCamelCase field that `key` names in either spelling, if any.
std::optional<std::string_view> CanonicalName(const std::vector<std::string_view>& names,
                                              std::string_view key) {
  for (std::string_view name : names) {
    // proto3 JSON: parsers accept the lowerCamelCase JSON name and the proto
    // field name alike, so files written by gcloud or by hand both load.
    if (key == name || key == SnakeCase(name)) return name;
  }
  return std::nullopt;
}

absl::Status UnknownFieldError(std::string_view path, std::string_view key,
                               const MessageFields& fields) {
  std::vector<std::string> snake_names;
  for (std::string_view name : fields.known) snake_names.push_back(SnakeCase(name));
  std::vector<std::string_view> candidates = fields.known;
  // Suggest in the spelling the user chose.
  if (key.find('_') != std::string_view::npos) {
    candidates.assign(snake_names.begin(), snake_names.end());
  }
  std::string suggestion = base::DidYouMean(key, candidates);
  if (suggestion.empty()) {
    suggestion = fmt::format("; valid fields: {}", fmt::join(fields.known, ", "));
  }
  return FieldError(FieldPath(path, key), fmt::format("unknown field{}", suggestion));
}

bool IsDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::Status NotAnInteger(const nlohmann::json& json, std::string_view path) {
  return FieldError(path, fmt::format("expected an integer (number or string of digits), got {}",
                                      DescribeJson(json)));
}

absl::Status OutOfRange(std::string_view path, std::string_view value, std::string_view range) {
  return FieldError(path, fmt::format("{} is out of range for {}", value, range));
}

constexpr std::string_view kInt64Range = "a 64-bit integer";

absl::StatusOr<int64_t> IntegralDouble(double value, const nlohmann::json& json,
                                       std::string_view path) {
  if (!std::isfinite(value) || value != std::trunc(value)) return NotAnInteger(json, path);
  // 2^63 is exactly representable; every double below it converts safely.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (value < -kTwoTo63 || value >= kTwoTo63) {
    return OutOfRange(path, DescribeJson(json), kInt64Range);
  }
  return static_cast<int64_t>(value);
}

}  // namespace

std::string FieldPath(std::string_view parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  return fmt::format("{}.{}", parent, field);
}

std::string IndexPath(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

absl::Status FieldError(std::string_view path, std::string_view message) {
  return absl::InvalidArgumentError(
      fmt::format("{}: {}", path.empty() ? "(top level)" : path, message));
}

absl::StatusOr<std::string> StringValue(const nlohmann::json& json, std::string_view path) {
  if (json.is_string()) return json.get<std::string>();
  std::string hint;
  if (json.is_number() || json.is_boolean()) {
    hint = fmt::format(" (quote it: \"{}\")", base::JsonExcerpt(json));
  }
  return FieldError(path, fmt::format("expected a string, got {}{}", DescribeJson(json), hint));
}

absl::StatusOr<int64_t> Int64Value(const nlohmann::json& json, std::string_view path) {
  if (json.is_number_integer() && !json.is_number_unsigned()) return json.get<int64_t>();
  if (json.is_number_unsigned()) {
    uint64_t value = json.get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return OutOfRange(path, DescribeJson(json), kInt64Range);
    }
    return static_cast<int64_t>(value);
  }
  if (json.is_number_float()) return IntegralDouble(json.get<double>(), json, path);
  // proto3 JSON writes int64 as a string ("replicaCount": "1", as Vertex's
  // responses do) and accepts a number too.
  if (!json.is_string()) return NotAnInteger(json, path);
  const std::string& text = json.get_ref<const std::string&>();
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  if (!IsDigits(digits)) return NotAnInteger(json, path);
  std::optional<int64_t> value = ParseNumber<int64_t>(text);
  if (!value.has_value()) return OutOfRange(path, text, kInt64Range);
  return *value;
}

absl::StatusOr<int32_t> Int32Value(const nlohmann::json& json, std::string_view path) {
  TP_ASSIGN_OR_RETURN(int64_t value, Int64Value(json, path));
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return OutOfRange(path, fmt::format("{}", value), "a 32-bit integer");
  }
  return static_cast<int32_t>(value);
}

absl::StatusOr<std::string> EnumValue(const nlohmann::json& json, std::string_view path,
                                      const ProtoEnum& proto_enum) {
  if (json.is_string()) {
    std::string name = json.get<std::string>();
    // The *_UNSPECIFIED value is proto3's default: the same as leaving the
    // field out.
    if (name == proto_enum.unspecified_name()) return std::string();
    return name;
  }
  if (json.is_number_integer()) {
    TP_ASSIGN_OR_RETURN(int64_t number, Int64Value(json, path));
    std::optional<std::string_view> name;
    if (number >= 0 && number <= std::numeric_limits<int>::max()) {
      name = proto_enum.NameOf(static_cast<int>(number));
    }
    if (!name.has_value()) {
      std::vector<std::string> valid;
      for (const ProtoEnumValue& value : proto_enum.values) {
        valid.push_back(fmt::format("{} ({})", value.number, value.name));
      }
      return FieldError(path, fmt::format("unknown {} number {}; valid numbers: {}",
                                          proto_enum.type_name, number, fmt::join(valid, ", ")));
    }
    if (*name == proto_enum.unspecified_name()) return std::string();
    return std::string(*name);
  }
  return FieldError(path, fmt::format("expected an enum value of {} (name or number), got {}",
                                      proto_enum.type_name, DescribeJson(json)));
}

absl::StatusOr<JsonObjectReader> JsonObjectReader::Create(const nlohmann::json& json,
                                                          std::string path,
                                                          const MessageFields& fields) {
  if (!json.is_object()) {
    return FieldError(path, fmt::format("expected an object, got {}", DescribeJson(json)));
  }
  JsonObjectReader reader(std::move(path));
  std::map<std::string_view, std::string_view> spelling;  // canonical name -> key used
  for (const auto& [key, value] : json.items()) {
    std::optional<std::string_view> name = CanonicalName(fields.known, key);
    if (!name.has_value()) {
      if (CanonicalName(fields.ignored, key).has_value()) continue;
      if (std::optional<std::string_view> unsupported = CanonicalName(fields.unsupported, key)) {
        return FieldError(reader.PathOf(*unsupported),
                          "this Vertex AI field is not supported by trainpkg; remove it");
      }
      return UnknownFieldError(reader.path_, key, fields);
    }
    if (auto [it, inserted] = spelling.emplace(*name, key); !inserted) {
      return FieldError(reader.PathOf(*name),
                        fmt::format("given twice, as '{}' and as '{}'; keep one", it->second, key));
    }
    // proto3 JSON: null means the field's default, as if it were absent.
    if (!value.is_null()) reader.values_.emplace(std::string(*name), &value);
  }
  return reader;
}

const nlohmann::json* JsonObjectReader::Find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : it->second;
}

absl::Status JsonObjectReader::ReadString(std::string_view name, std::string* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, StringValue(*json, PathOf(name)));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadBool(std::string_view name, bool* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  if (!json->is_boolean()) {
    return FieldError(PathOf(name),
                      fmt::format("expected true or false, got {}", DescribeJson(*json)));
  }
  *out = json->get<bool>();
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadInt32(std::string_view name, int32_t* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, Int32Value(*json, PathOf(name)));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadInt64(std::string_view name, int64_t* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, Int64Value(*json, PathOf(name)));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadEnum(std::string_view name, const ProtoEnum& proto_enum,
                                        std::string* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, EnumValue(*json, PathOf(name), proto_enum));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadStringList(std::string_view name,
                                              std::vector<std::string>* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_array()) {
    return FieldError(path, fmt::format("expected a list of strings, got {}", DescribeJson(*json)));
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < json->size(); ++i) {
    TP_ASSIGN_OR_RETURN(std::string value, StringValue((*json)[i], IndexPath(path, i)));
    values.push_back(std::move(value));
  }
  *out = std::move(values);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadStringMap(std::string_view name,
                                             std::map<std::string, std::string>* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_object()) {
    return FieldError(
        path, fmt::format("expected an object of string values, got {}", DescribeJson(*json)));
  }
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : json->items()) {
    TP_ASSIGN_OR_RETURN(std::string text, StringValue(value, FieldPath(path, key)));
    values.emplace(key, std::move(text));
  }
  *out = std::move(values);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadDuration(std::string_view name,
                                            std::optional<absl::Duration>* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_string()) {
    return FieldError(path, fmt::format("expected a duration string such as \"3600s\", got {}",
                                        DescribeJson(*json)));
  }
  absl::StatusOr<absl::Duration> value = ParseDuration(json->get_ref<const std::string&>());
  if (!value.ok()) return FieldError(path, std::string(value.status().message()));
  *out = *value;
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadTimestamp(std::string_view name,
                                             std::optional<absl::Time>* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_string()) {
    return FieldError(
        path, fmt::format("expected an RFC 3339 timestamp string, got {}", DescribeJson(*json)));
  }
  absl::StatusOr<absl::Time> value = ParseTimestamp(json->get_ref<const std::string&>());
  if (!value.ok()) return FieldError(path, std::string(value.status().message()));
  *out = *value;
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ForEachElement(
    std::string_view name,
    const std::function<absl::Status(const nlohmann::json&, const std::string&)>& read_element)
    const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_array()) {
    return FieldError(path, fmt::format("expected a list, got {}", DescribeJson(*json)));
  }
  for (size_t i = 0; i < json->size(); ++i) {
    TP_RETURN_IF_ERROR(read_element((*json)[i], IndexPath(path, i)));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::jobspec::internal
