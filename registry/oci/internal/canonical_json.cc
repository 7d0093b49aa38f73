#include "registry/oci/internal/canonical_json.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "base/json_parse.h"

namespace trainpkg::oci::internal {

std::string CanonicalDump(const OrderedJson& json) {
  std::string text = json.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  // '<', '>' and '&' only occur inside strings in compact JSON, and so do
  // the UTF-8 forms of U+2028 / U+2029: escaping them everywhere is exact.
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

void PutString(OrderedJson& object, std::string_view key, const std::string& value) {
  if (!value.empty()) object[std::string(key)] = value;
}

void PutStringList(OrderedJson& object, std::string_view key,
                   const std::vector<std::string>& values) {
  if (!values.empty()) object[std::string(key)] = values;
}

void PutStringMap(OrderedJson& object, std::string_view key,
                  const std::map<std::string, std::string>& values) {
  if (values.empty()) return;
  OrderedJson map = OrderedJson::object();
  for (const auto& [name, value] : values) map[name] = value;
  object[std::string(key)] = std::move(map);
}

void PutKeySet(OrderedJson& object, std::string_view key, const std::set<std::string>& keys) {
  if (keys.empty()) return;
  OrderedJson map = OrderedJson::object();
  for (const std::string& name : keys) map[name] = OrderedJson::object();
  object[std::string(key)] = std::move(map);
}

void PutUnknown(OrderedJson& object, const std::map<std::string, std::string>& unknown) {
  for (const auto& [name, text] : unknown) {
    OrderedJson value =
        base::ParseJson<OrderedJson>(text).value_or(OrderedJson::value_t::discarded);
    if (value.is_discarded()) {
      std::fprintf(stderr, "trainpkg: unknown field \"%s\" does not hold JSON text\n",
                   name.c_str());
      std::abort();
    }
    object[name] = std::move(value);
  }
}

OrderedJson DigestList(const std::vector<Digest>& digests) {
  OrderedJson list = OrderedJson::array();
  for (const Digest& digest : digests) list.push_back(digest.ToString());
  return list;
}

}  // namespace trainpkg::oci::internal
