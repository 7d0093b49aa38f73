#include "base/json_parse.h"

#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace trainpkg::base {
namespace {

// Thrown from the parser callback to stop at the first array or object that
// nests too deeply; caught in ParseJson.
struct TooDeep {};

// 1-based line and column of byte `offset`, counted as nlohmann counts them.
std::string LineAndColumn(std::string_view text, size_t offset) {
  size_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("line {}, column {}", line, offset - line_start + 1);
}

// Where the first '[' or '{' deeper than `max_depth` opens. Only called after
// the parser stopped there, so the text before it is valid JSON and the
// scan needs to know no more than strings and their escapes.
size_t OffsetOfTooDeep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

// e.what() is "[json.exception.parse_error.101] parse error at line 3, ...".
std::string_view WithoutExceptionId(std::string_view message) {
  if (message.starts_with("[json.exception.")) {
    if (size_t end = message.find("] "); end != std::string_view::npos) {
      message.remove_prefix(end + 2);
    }
  }
  return message;
}

}  // namespace

template <typename Json>
absl::StatusOr<Json> ParseJson(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return absl::InvalidArgumentError(
        fmt::format("invalid JSON: the text is {} bytes; the limit is {} bytes", text.size(),
                    limits.max_bytes));
  }
  // `depth` counts the arrays and objects around the one that starts.
  typename Json::parser_callback_t check_depth = [&limits](int depth,
                                                           typename Json::parse_event_t event,
                                                           Json& /*parsed*/) {
    if ((event == Json::parse_event_t::array_start || event == Json::parse_event_t::object_start) &&
        depth >= limits.max_depth) {
      throw TooDeep{};
    }
    return true;
  };
  try {
    return Json::parse(text, check_depth);
  } catch (const TooDeep&) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid JSON: arrays and objects nest deeper than the limit of {} levels at {}",
        limits.max_depth, LineAndColumn(text, OffsetOfTooDeep(text, limits.max_depth))));
  } catch (const typename Json::exception& e) {
    return absl::InvalidArgumentError(
        fmt::format("invalid JSON: {}", WithoutExceptionId(e.what())));
  }
}

template absl::StatusOr<nlohmann::json> ParseJson<nlohmann::json>(std::string_view,
                                                                  const JsonLimits&);
template absl::StatusOr<nlohmann::ordered_json> ParseJson<nlohmann::ordered_json>(
    std::string_view, const JsonLimits&);

}  // namespace trainpkg::base
