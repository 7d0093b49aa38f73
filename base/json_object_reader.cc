#include "base/json_object_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::base {
namespace {

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

// The field of `names` that `key` names: itself, or in proto3 JSON also its
// snake_case spelling.
std::optional<std::string_view> CanonicalName(const std::vector<std::string_view>& names,
                                              std::string_view key, const JsonDialect& dialect) {
  for (std::string_view name : names) {
    // proto3 JSON: parsers accept the lowerCamelCase JSON name and the proto
    // field name alike, so files written by gcloud or by hand both load.
    if (key == name || (dialect.proto3 && key == SnakeCase(name))) return name;
  }
  return std::nullopt;
}

absl::Status UnknownFieldError(std::string_view path, std::string_view key,
                               const JsonFields& fields, const JsonDialect& dialect) {
  std::vector<std::string> snake_names;
  std::vector<std::string_view> candidates = fields.known;
  // Suggest in the spelling the user chose.
  if (dialect.proto3 && key.find('_') != std::string_view::npos) {
    for (std::string_view name : fields.known) snake_names.push_back(SnakeCase(name));
    candidates.assign(snake_names.begin(), snake_names.end());
  }
  std::string suggestion = DidYouMean(key, candidates);
  if (suggestion.empty()) {
    suggestion = fmt::format("; valid fields: {}", fmt::join(fields.known, ", "));
  }
  return dialect.Error(FieldPath(path, key), fmt::format("unknown field{}", suggestion));
}

absl::Status Expected(std::string_view path, std::string_view what, const nlohmann::json& got,
                      const JsonDialect& dialect) {
  return dialect.Error(path, fmt::format("expected {}, got {}", what, dialect.Describe(got)));
}

bool IsDigits(std::string_view text) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); });
}

absl::Status BeyondInt64(std::string_view path, std::string_view value,
                         const JsonDialect& dialect) {
  return dialect.Error(path, fmt::format("{}{}", value, dialect.beyond_int64));
}

// proto3 JSON: an int64 may be a number with no fraction ("5.0").
absl::StatusOr<int64_t> IntegralDouble(const nlohmann::json& json, std::string_view path,
                                       const JsonDialect& dialect) {
  const double value = json.get<double>();
  if (!std::isfinite(value) || value != std::trunc(value)) {
    return Expected(path, dialect.an_integer, json, dialect);
  }
  // 2^63 is exactly representable; every double below it converts safely.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (value < -kTwoTo63 || value >= kTwoTo63) {
    return BeyondInt64(path, dialect.Describe(json), dialect);
  }
  return static_cast<int64_t>(value);
}

// proto3 JSON: an int64 may be a string of digits ("-12").
absl::StatusOr<int64_t> DigitString(const nlohmann::json& json, std::string_view path,
                                    const JsonDialect& dialect) {
  const std::string& text = json.get_ref<const std::string&>();
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') digits.remove_prefix(1);
  if (!IsDigits(digits)) return Expected(path, dialect.an_integer, json, dialect);
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const std::from_chars_result parsed = std::from_chars(text.data(), end, value);
  if (parsed.ec != std::errc() || parsed.ptr != end) {
    return BeyondInt64(path, text, dialect);
  }
  return value;
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
  if (path.empty()) return absl::InvalidArgumentError(std::string(message));
  return absl::InvalidArgumentError(fmt::format("{}: {}", path, message));
}

absl::Status JsonDialect::Error(std::string_view path, std::string_view message) const {
  return FieldError(path.empty() ? top_level : path, message);
}

std::string JsonDialect::Describe(const nlohmann::json& value) const {
  return name_value_types ? DescribeJson(value) : JsonExcerpt(value);
}

absl::StatusOr<std::string> JsonString(const nlohmann::json& json, std::string_view path,
                                       const JsonDialect& dialect) {
  if (json.is_string()) return json.get<std::string>();
  std::string hint;
  if (dialect.name_value_types && (json.is_number() || json.is_boolean())) {
    hint = fmt::format(" (quote it: \"{}\")", JsonExcerpt(json));
  }
  return dialect.Error(path,
                       fmt::format("expected a string, got {}{}", dialect.Describe(json), hint));
}

absl::StatusOr<int64_t> JsonInt64(const nlohmann::json& json, std::string_view path,
                                  const JsonDialect& dialect) {
  if (json.is_number_unsigned()) {
    const uint64_t value = json.get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return BeyondInt64(path, dialect.Describe(json), dialect);
    }
    return static_cast<int64_t>(value);
  }
  if (json.is_number_integer()) return json.get<int64_t>();
  if (dialect.proto3 && json.is_number_float()) return IntegralDouble(json, path, dialect);
  if (dialect.proto3 && json.is_string()) return DigitString(json, path, dialect);
  return Expected(path, dialect.an_integer, json, dialect);
}

absl::StatusOr<int32_t> JsonInt32(const nlohmann::json& json, std::string_view path,
                                  const JsonDialect& dialect) {
  TP_ASSIGN_OR_RETURN(int64_t value, JsonInt64(json, path, dialect));
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return dialect.Error(path, fmt::format("{} is out of range for a 32-bit integer", value));
  }
  return static_cast<int32_t>(value);
}

absl::StatusOr<JsonObjectReader> JsonObjectReader::Create(const nlohmann::json& json,
                                                          std::string path,
                                                          const JsonDialect& dialect) {
  if (!json.is_object()) return Expected(path, "an object", json, dialect);
  JsonObjectReader reader(&json, std::move(path), &dialect);
  for (const auto& [key, value] : json.items()) {
    if (!value.is_null()) reader.values_.emplace(key, &value);
  }
  return reader;
}

absl::StatusOr<JsonObjectReader> JsonObjectReader::Create(const nlohmann::json& json,
                                                          std::string path,
                                                          const JsonDialect& dialect,
                                                          const JsonFields& fields) {
  if (!json.is_object()) return Expected(path, "an object", json, dialect);
  JsonObjectReader reader(&json, std::move(path), &dialect);
  std::map<std::string_view, std::string_view> spelling;  // canonical name -> key used
  for (const auto& [key, value] : json.items()) {
    std::optional<std::string_view> name = CanonicalName(fields.known, key, dialect);
    if (!name.has_value()) {
      if (CanonicalName(fields.ignored, key, dialect).has_value()) continue;
      if (std::optional<std::string_view> unsupported =
              CanonicalName(fields.unsupported, key, dialect)) {
        return reader.ErrorAt(*unsupported, dialect.unsupported_field);
      }
      return UnknownFieldError(reader.path_, key, fields, dialect);
    }
    if (auto [it, inserted] = spelling.emplace(*name, key); !inserted) {
      return reader.ErrorAt(
          *name, fmt::format("given twice, as '{}' and as '{}'; keep one", it->second, key));
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

absl::Status JsonObjectReader::Require(std::string_view name) const {
  if (Find(name) == nullptr) return ErrorAt(name, "required field is missing");
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadString(std::string_view name, std::string* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, JsonString(*json, PathOf(name), *dialect_));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadBool(std::string_view name, bool* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  if (!json->is_boolean()) return Expected(PathOf(name), "true or false", *json, *dialect_);
  *out = json->get<bool>();
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadInt32(std::string_view name, int32_t* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, JsonInt32(*json, PathOf(name), *dialect_));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadInt64(std::string_view name, int64_t* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, JsonInt64(*json, PathOf(name), *dialect_));
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadStringList(std::string_view name,
                                              std::vector<std::string>* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_array()) return Expected(path, dialect_->a_string_array, *json, *dialect_);
  std::vector<std::string> values;
  for (size_t i = 0; i < json->size(); ++i) {
    TP_ASSIGN_OR_RETURN(std::string value, JsonString((*json)[i], IndexPath(path, i), *dialect_));
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
  if (!json->is_object()) return Expected(path, dialect_->a_string_map, *json, *dialect_);
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : json->items()) {
    TP_ASSIGN_OR_RETURN(std::string text, JsonString(value, FieldPath(path, key), *dialect_));
    values.emplace(key, std::move(text));
  }
  *out = std::move(values);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ReadKeySet(std::string_view name, std::set<std::string>* out) const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  if (!json->is_object()) return Expected(PathOf(name), "an object", *json, *dialect_);
  std::set<std::string> keys;
  for (const auto& [key, value] : json->items()) keys.insert(key);
  *out = std::move(keys);
  return absl::OkStatus();
}

absl::Status JsonObjectReader::ForEachElement(
    std::string_view name,
    const std::function<absl::Status(const nlohmann::json&, const std::string&)>& read_element)
    const {
  const nlohmann::json* json = Find(name);
  if (json == nullptr) return absl::OkStatus();
  const std::string path = PathOf(name);
  if (!json->is_array()) return Expected(path, dialect_->an_array, *json, *dialect_);
  for (size_t i = 0; i < json->size(); ++i) {
    TP_RETURN_IF_ERROR(read_element((*json)[i], IndexPath(path, i)));
  }
  return absl::OkStatus();
}

std::map<std::string, std::string> JsonObjectReader::Unknown(
    std::initializer_list<std::string_view> known) const {
  std::map<std::string, std::string> unknown;
  for (const auto& [key, value] : json_->items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    unknown.emplace(key, value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return unknown;
}

}  // namespace trainpkg::base
