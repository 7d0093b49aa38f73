#include "base/json_describe.h"

#include <string_view>

namespace trainpkg::base {
namespace {

constexpr int kMaxExcerptDepth = 4;

// Appends `text` as a JSON string, cut before it is escaped when long.
void AppendString(const std::string& text, size_t limit, std::string& out) {
  nlohmann::json head = text.size() > limit ? text.substr(0, limit + 1) : text;
  out += head.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Appends the compact text of `value` to `out` until `out` holds more than
// `limit` characters.
void AppendExcerpt(const nlohmann::json& value, int depth, size_t limit, std::string& out) {
  if (out.size() > limit) return;
  if (value.is_string()) {
    AppendString(value.get_ref<const std::string&>(), limit, out);
    return;
  }
  if (!value.is_structured()) {
    out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  const bool is_object = value.is_object();
  if (depth >= kMaxExcerptDepth && !value.empty()) {
    out += is_object ? "{...}" : "[...]";
    return;
  }
  out += is_object ? '{' : '[';
  bool first = true;
  for (auto it = value.begin(); it != value.end() && out.size() <= limit; ++it) {
    if (!first) out += ',';
    first = false;
    if (is_object) {
      AppendString(it.key(), limit, out);
      out += ':';
    }
    AppendExcerpt(it.value(), depth + 1, limit, out);
  }
  out += is_object ? '}' : ']';
}

std::string_view TypePhrase(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::boolean:
      return "the boolean ";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "the number ";
    case nlohmann::json::value_t::string:
      return "the string ";
    case nlohmann::json::value_t::array:
      return "a list ";
    case nlohmann::json::value_t::object:
      return "an object ";
    default:
      return "";
  }
}

}  // namespace

std::string JsonExcerpt(const nlohmann::json& value, size_t max_chars) {
  std::string out;
  AppendExcerpt(value, 0, max_chars, out);
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out += "...";
  }
  return out;
}

std::string DescribeJson(const nlohmann::json& value) {
  return std::string(TypePhrase(value)) + JsonExcerpt(value);
}

}  // namespace trainpkg::base
