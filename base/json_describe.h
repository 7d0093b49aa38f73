// Short descriptions of JSON values for error messages. A value from outside
// may be huge or deeply nested, so these never dump it whole: they write at
// most a fixed number of characters and a few levels of nesting.
#ifndef TRAINPKG_BASE_JSON_DESCRIBE_H_
#define TRAINPKG_BASE_JSON_DESCRIBE_H_

#include <cstddef>
#include <string>

#include "nlohmann/json.hpp"

namespace trainpkg::base {

inline constexpr size_t kDefaultJsonExcerptChars = 60;

// Compact JSON text of `value` (as dump() writes it) cut after `max_chars`
// characters with "..." appended; arrays and objects nested more than 4
// levels below `value` are written as [...] and {...}.
std::string JsonExcerpt(const nlohmann::json& value, size_t max_chars = kDefaultJsonExcerptChars);

// The value's JSON type and its excerpt, for "expected X, got <this>":
// "null", "the boolean true", "the number 10", "the string \"abc\"",
// "a list [1,2]", "an object {\"a\":1}".
std::string DescribeJson(const nlohmann::json& value);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_JSON_DESCRIBE_H_
