#include "jobspec/job_file.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/internal/parse_number.h"
#include "yaml-cpp/yaml.h"

namespace trainpkg::jobspec {
namespace {

using nlohmann::json;

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";
// The tag yaml-cpp gives quoted scalars (plain ones get "?").
constexpr std::string_view kQuotedScalarTag = "!";

bool IsYamlNull(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> YamlBool(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// An integer in the YAML 1.2 core schema: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+.
std::optional<json> YamlInteger(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    std::optional<uint64_t> value =
        internal::ParseNumber<uint64_t>(s.substr(2), s[1] == 'x' ? 16 : 8);
    if (!value.has_value()) return std::nullopt;
    return json(*value);
  }
  std::string_view magnitude = s;
  if (s.starts_with('-') || s.starts_with('+')) magnitude.remove_prefix(1);
  if (!AllDigits(magnitude)) return std::nullopt;
  std::string_view digits = s.starts_with('+') ? magnitude : s;  // from_chars takes no '+'
  if (std::optional<int64_t> value = internal::ParseNumber<int64_t>(digits)) return json(*value);
  if (std::optional<uint64_t> value = internal::ParseNumber<uint64_t>(digits)) return json(*value);
  // Too long for 64 bits: keep the magnitude, as a JSON parser would.
  if (std::optional<double> value = internal::ParseNumber<double>(digits)) return json(*value);
  return std::nullopt;
}

// A float in the YAML 1.2 core schema, including .inf and .nan.
std::optional<json> YamlFloat(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    double inf = std::numeric_limits<double>::infinity();
    return json(negative ? -inf : inf);
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    return json(std::numeric_limits<double>::quiet_NaN());
  }
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  size_t i = 0;
  size_t mantissa_digits = 0;
  while (i < body.size() && absl::ascii_isdigit(static_cast<unsigned char>(body[i]))) {
    ++i;
    ++mantissa_digits;
  }
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && absl::ascii_isdigit(static_cast<unsigned char>(body[i]))) {
      ++i;
      ++mantissa_digits;
    }
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '-' || body[i] == '+')) ++i;
    if (!AllDigits(body.substr(i))) return std::nullopt;
    i = body.size();
  }
  if (i != body.size()) return std::nullopt;
  std::optional<double> value = internal::ParseNumber<double>(body);
  if (!value.has_value()) return std::nullopt;
  return json(negative ? -*value : *value);
}

// Types a plain scalar the way the YAML 1.2 core schema resolves it.
json PlainScalar(const std::string& s) {
  if (IsYamlNull(s)) return nullptr;
  if (std::optional<bool> b = YamlBool(s)) return *b;
  if (std::optional<json> i = YamlInteger(s)) return *i;
  if (std::optional<json> f = YamlFloat(s)) return *f;
  return s;
}

// " at line L, column C", or "" when yaml-cpp has no position.
std::string Where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return fmt::format(" at line {}, column {}", mark.line + 1, mark.column + 1);
}

absl::StatusOr<json> NodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Scalar:
      if (node.Tag() == kQuotedScalarTag || node.Tag() == kStrTag) return node.Scalar();
      // Plain scalars, and explicit tags such as !!int, are typed by their text.
      return PlainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json list = json::array();
      for (const YAML::Node& item : node) {
        TP_ASSIGN_OR_RETURN(json value, NodeToJson(item));
        list.push_back(std::move(value));
      }
      return list;
    }
    case YAML::NodeType::Map: {
      json object = json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
          return absl::InvalidArgumentError(fmt::format(
              "invalid YAML{}: mapping keys must be plain strings", Where(entry.first.Mark())));
        }
        const std::string& key = entry.first.Scalar();
        if (object.contains(key)) {
          return absl::InvalidArgumentError(
              fmt::format("invalid YAML{}: duplicate key '{}'", Where(entry.first.Mark()), key));
        }
        TP_ASSIGN_OR_RETURN(object[key], NodeToJson(entry.second));
      }
      return object;
    }
  }
  return nullptr;
}

// gcloud's --config accepts a single mapping where a list of worker pools
// belongs; make it a one-element list.
void WrapSingleWorkerPool(json& spec) {
  for (const char* key : {"workerPoolSpecs", "worker_pool_specs"}) {
    auto it = spec.find(key);
    if (it != spec.end() && it->is_object()) *it = json::array({*it});
  }
}

bool IsWholeCustomJob(const json& document) {
  for (const char* key : {"jobSpec", "job_spec", "displayName", "display_name"}) {
    if (document.contains(key)) return true;
  }
  return false;
}

absl::StatusOr<json> ParseDocument(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    // JSON: parsed as JSON for JSON's own error messages.
    json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!document.is_discarded()) return document;
  }
  return YamlToJson(text);
}

}  // namespace

absl::StatusOr<json> YamlToJson(std::string_view yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(fmt::format("invalid YAML{}: {}", Where(e.mark), e.msg));
  }
  return NodeToJson(root);
}

absl::StatusOr<CustomJob> ParseJobFile(std::string_view text) {
  TP_ASSIGN_OR_RETURN(json document, ParseDocument(text));
  if (document.is_null()) {
    return absl::InvalidArgumentError(
        "the job file is empty; expected a CustomJob or CustomJobSpec");
  }
  if (!document.is_object()) {
    return absl::InvalidArgumentError(
        "expected a mapping at the top level: a CustomJob {displayName, jobSpec} or a "
        "CustomJobSpec {workerPoolSpecs, ...}");
  }
  if (IsWholeCustomJob(document)) {
    for (const char* key : {"jobSpec", "job_spec"}) {
      auto it = document.find(key);
      if (it != document.end() && it->is_object()) WrapSingleWorkerPool(*it);
    }
    return CustomJobFromJson(document);
  }
  WrapSingleWorkerPool(document);
  CustomJob job;
  TP_ASSIGN_OR_RETURN(job.job_spec, CustomJobSpecFromJson(document));
  return job;
}

absl::StatusOr<CustomJob> LoadJobFile(const std::filesystem::path& path) {
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(path));
  absl::StatusOr<CustomJob> job = ParseJobFile(text);
  if (!job.ok()) {
    return absl::Status(job.status().code(),
                        fmt::format("{}: {}", path.string(), std::string(job.status().message())));
  }
  return job;
}

}  // namespace trainpkg::jobspec
