#include "jobspec/job_file.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "base/utf8.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/internal/parse_number.h"
#include "yaml-cpp/anchor.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/mark.h"
#include "yaml-cpp/parser.h"

namespace trainpkg::jobspec {
namespace {

using Json = nlohmann::json;

// Limits of YamlToJson (see JsonBuilder); the depth is JSON's, so a
// converted document is as safe to use as a parsed one.
constexpr size_t kMaxYamlBytes = base::kDefaultMaxJsonBytes;
constexpr size_t kMaxYamlDepth = base::kDefaultMaxJsonDepth;
// Job, study and kubeconfig files hold hundreds of values, not 100000.
constexpr size_t kMaxYamlNodes = 100'000;
constexpr size_t kMaxYamlScalarBytes = kMaxYamlBytes;

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

bool AllDecimalDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// An integer in the YAML 1.2 core schema: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+.
std::optional<Json> YamlInteger(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    std::optional<uint64_t> value =
        internal::ParseNumber<uint64_t>(s.substr(2), s[1] == 'x' ? 16 : 8);
    if (!value.has_value()) return std::nullopt;
    return Json(*value);
  }
  std::string_view magnitude = s;
  if (s.starts_with('-') || s.starts_with('+')) magnitude.remove_prefix(1);
  if (!AllDecimalDigits(magnitude)) return std::nullopt;
  std::string_view digits = s.starts_with('+') ? magnitude : s;  // from_chars takes no '+'
  if (std::optional<int64_t> value = internal::ParseNumber<int64_t>(digits)) return Json(*value);
  if (std::optional<uint64_t> value = internal::ParseNumber<uint64_t>(digits)) return Json(*value);
  // Too long for 64 bits: keep the magnitude, as a JSON parser would.
  if (std::optional<double> value = internal::ParseNumber<double>(digits)) return Json(*value);
  return std::nullopt;
}

// A float in the YAML 1.2 core schema, including .inf and .nan.
std::optional<Json> YamlFloat(std::string_view s) {
  std::string_view body = s;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    double inf = std::numeric_limits<double>::infinity();
    return Json(negative ? -inf : inf);
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    return Json(std::numeric_limits<double>::quiet_NaN());
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
    if (!AllDecimalDigits(body.substr(i))) return std::nullopt;
    i = body.size();
  }
  if (i != body.size()) return std::nullopt;
  std::optional<double> value = internal::ParseNumber<double>(body);
  if (!value.has_value()) return std::nullopt;
  return Json(negative ? -*value : *value);
}

// Types a plain scalar the way the YAML 1.2 core schema resolves it.
Json PlainScalar(const std::string& s) {
  if (IsYamlNull(s)) return nullptr;
  if (std::optional<bool> b = YamlBool(s)) return *b;
  if (std::optional<Json> i = YamlInteger(s)) return *i;
  if (std::optional<Json> f = YamlFloat(s)) return *f;
  return s;
}

// yaml-cpp 0.7 writes the escapes \N (U+0085) and \_ (U+00A0) of
// double-quoted scalars as the lone bytes 0x85 and 0xA0, not as UTF-8. The
// text was checked to be UTF-8 before parsing, so such bytes come only from
// these escapes: encode them as UTF-8. Any other byte that is not UTF-8 is
// refused (Json::dump would throw on it).
std::string Utf8Scalar(const YAML::Mark& mark, const std::string& value) {
  if (!base::FirstInvalidUtf8(value).has_value()) return value;
  std::string out;
  out.reserve(value.size() + 16);
  std::string_view rest = value;
  while (!rest.empty()) {
    size_t length = base::Utf8SequenceLength(rest);
    if (length == 0) {
      const auto byte = static_cast<unsigned char>(rest[0]);
      if (byte != 0x85 && byte != 0xA0) {
        throw YAML::ParserException(
            mark, fmt::format("a scalar decodes to byte 0x{:02X}, which is not UTF-8", byte));
      }
      out += '\xC2';
      out += rest[0];
      length = 1;
    } else {
      out.append(rest.substr(0, length));
    }
    rest.remove_prefix(length);
  }
  return out;
}

// " at line L, column C", or "" when yaml-cpp has no position.
std::string Where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return fmt::format(" at line {}, column {}", mark.line + 1, mark.column + 1);
}

// Builds the JSON value from yaml-cpp's parse events. JSON has no aliases,
// so each alias becomes a copy of its anchored value; a few hundred bytes of
// nested aliases ("billion laughs") could stand for billions of nodes, and an
// alias inside its own anchored node for an infinite tree. Hence the limits,
// checked as the value grows: nesting depth, and every node and scalar byte
// written, alias copies and the copies kept for anchors included.
class JsonBuilder : public YAML::EventHandler {
 public:
  Json TakeRoot() && { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {}
  void OnDocumentEnd() override {}

  void OnAnchor(const YAML::Mark& /*mark*/, const std::string& name) override {
    last_anchor_name_ = name;
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Spend(mark, 1, 0);
    Emit(mark, anchor, Node{nullptr, std::nullopt, 0, 1, 0});
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& raw_value) override {
    const std::string value = Utf8Scalar(mark, raw_value);
    Spend(mark, 1, value.size());
    // Plain scalars, and explicit tags such as !!int, are typed by their text.
    Json typed = tag == kQuotedScalarTag || tag == kStrTag ? Json(value) : PlainScalar(value);
    Emit(mark, anchor, Node{std::move(typed), value, 0, 1, value.size()});
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      // yaml-cpp rejects undefined aliases itself: this anchor's node is still open.
      throw YAML::ParserException(
          mark, fmt::format("the alias {}refers to a node that contains it (a cycle); aliases "
                            "may only repeat a node defined before them",
                            AnchorName(anchor)));
    }
    const Node& anchored = it->second;
    CheckDepth(mark, stack_.size() + anchored.height);
    Spend(mark, anchored.nodes, anchored.bytes);
    Emit(mark, YAML::NullAnchor, anchored);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    Open(mark, anchor, Json::array());
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    Open(mark, anchor, Json::object());
  }
  void OnMapEnd() override { Close(); }

 private:
  // A finished value with what it costs to copy.
  struct Node {
    Json value;
    std::optional<std::string> scalar_text;  // as written, for mapping keys
    size_t height = 0;                       // nesting: 0 for a scalar, 1 for [1]
    size_t nodes = 0;
    size_t bytes = 0;
  };
  // An open sequence or mapping.
  struct Frame {
    YAML::Mark mark;
    YAML::anchor_t anchor;
    Node node;
    std::optional<std::string> key;  // a mapping's key awaiting its value
  };

  std::string AnchorName(YAML::anchor_t anchor) const {
    auto it = anchor_names_.find(anchor);
    return it == anchor_names_.end() ? "" : fmt::format("*{} ", it->second);
  }

  void CheckDepth(const YAML::Mark& mark, size_t depth) const {
    if (depth > kMaxYamlDepth) {
      throw YAML::ParserException(
          mark, fmt::format("sequences and mappings nest deeper than the limit of {} levels",
                            kMaxYamlDepth));
    }
  }

  void Spend(const YAML::Mark& mark, size_t nodes, size_t bytes) {
    nodes_ += nodes;
    bytes_ += bytes;
    if (nodes_ > kMaxYamlNodes) {
      throw YAML::ParserException(
          mark, fmt::format("the document holds more than {} values once its aliases are "
                            "expanded (each use of an alias counts all the values it repeats)",
                            kMaxYamlNodes));
    }
    if (bytes_ > kMaxYamlScalarBytes) {
      throw YAML::ParserException(
          mark, fmt::format("the document holds more than {} bytes of text once its aliases are "
                            "expanded (each use of an alias counts all the text it repeats)",
                            kMaxYamlScalarBytes));
    }
  }

  void Open(const YAML::Mark& mark, YAML::anchor_t anchor, Json empty) {
    CheckDepth(mark, stack_.size() + 1);
    Spend(mark, 1, 0);
    NameAnchor(anchor);
    stack_.push_back(Frame{mark, anchor, Node{std::move(empty), std::nullopt, 1, 1, 0}, {}});
  }

  void Close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Emit(frame.mark, frame.anchor, std::move(frame.node));
  }

  void NameAnchor(YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchor_names_[anchor] = last_anchor_name_;
  }

  // Puts a finished value where it belongs: the root, the next element of a
  // sequence, or a mapping's key or value.
  void Emit(const YAML::Mark& mark, YAML::anchor_t anchor, Node node) {
    if (anchor != YAML::NullAnchor) {
      NameAnchor(anchor);
      Spend(mark, node.nodes, node.bytes);  // the copy kept for aliases
      anchors_.insert_or_assign(anchor, node);
    }
    if (stack_.empty()) {
      root_ = std::move(node.value);
      return;
    }
    Frame& parent = stack_.back();
    parent.node.nodes += node.nodes;
    parent.node.bytes += node.bytes;
    parent.node.height = std::max(parent.node.height, node.height + 1);
    if (parent.node.value.is_array()) {
      parent.node.value.push_back(std::move(node.value));
      return;
    }
    if (!parent.key.has_value()) {
      if (!node.scalar_text.has_value()) {
        throw YAML::ParserException(mark, "mapping keys must be plain strings");
      }
      if (parent.node.value.contains(*node.scalar_text)) {
        throw YAML::ParserException(mark, fmt::format("duplicate key '{}'", *node.scalar_text));
      }
      parent.key = std::move(node.scalar_text);
      return;
    }
    parent.node.value[*parent.key] = std::move(node.value);
    parent.key.reset();
  }

  Json root_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Node> anchors_;
  std::map<YAML::anchor_t, std::string> anchor_names_;
  std::string last_anchor_name_;
  size_t nodes_ = 0;
  size_t bytes_ = 0;
};

// gcloud's --config accepts a single mapping where a list of worker pools
// belongs; make it a one-element list.
void WrapSingleWorkerPool(Json& spec) {
  for (const char* key : {"workerPoolSpecs", "worker_pool_specs"}) {
    auto it = spec.find(key);
    if (it != spec.end() && it->is_object()) *it = Json::array({*it});
  }
}

bool IsWholeCustomJob(const Json& document) {
  for (const char* key : {"jobSpec", "job_spec", "displayName", "display_name"}) {
    if (document.contains(key)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<Json> YamlToJson(std::string_view yaml_text) {
  if (yaml_text.size() > kMaxYamlBytes) {
    return absl::InvalidArgumentError(
        fmt::format("invalid YAML: the text is {} bytes; the limit is {} bytes", yaml_text.size(),
                    kMaxYamlBytes));
  }
  if (std::optional<size_t> bad = base::FirstInvalidUtf8(yaml_text); bad.has_value()) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid YAML: byte {} is not UTF-8 (YAML files must be UTF-8 text)", *bad + 1));
  }
  // YAML text never holds NUL, and yaml-cpp takes NUL bytes among the first
  // four for UTF-16 or UTF-32 ("a\0\0\0" reads as UTF-32LE), decoding the
  // rest into scalars that are not UTF-8 (Json::dump then throws).
  if (size_t nul = yaml_text.find('\0'); nul != std::string_view::npos) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid YAML: byte {} is NUL (YAML files must be UTF-8 text, which has no NUL bytes; "
        "convert UTF-16 or UTF-32 files to UTF-8)",
        nul + 1));
  }
  std::istringstream stream{std::string(yaml_text)};
  JsonBuilder builder;
  try {
    YAML::Parser parser(stream);
    parser.HandleNextDocument(builder);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(fmt::format("invalid YAML{}: {}", Where(e.mark), e.msg));
  }
  return std::move(builder).TakeRoot();
}

absl::StatusOr<Json> ParseJsonOrYaml(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    // JSON is YAML, but the JSON parser is faster and types numbers as JSON does.
    absl::StatusOr<Json> document = base::ParseJson(text);
    if (document.ok()) return document;
  }
  return YamlToJson(text);
}

absl::StatusOr<CustomJob> ParseJobFile(std::string_view text) {
  TP_ASSIGN_OR_RETURN(Json document, ParseJsonOrYaml(text));
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
    return base::WithContext(job.status(), path.string());
  }
  return job;
}

}  // namespace trainpkg::jobspec
