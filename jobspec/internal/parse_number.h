// Whole-string number parsing for std::string_view. (absl::SimpleAtoi takes
// absl::string_view, which Debian's abseil does not alias to std::string_view.)
#ifndef TRAINPKG_JOBSPEC_INTERNAL_PARSE_NUMBER_H_
#define TRAINPKG_JOBSPEC_INTERNAL_PARSE_NUMBER_H_

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace trainpkg::jobspec::internal {

// `text` as a number of type T in base `base` (integers) or decimal/scientific
// notation (floating point); nullopt unless all of `text` is consumed and the
// value fits. A leading '-' is accepted for signed and floating types; '+' and
// whitespace are not.
template <typename T>
std::optional<T> ParseNumber(std::string_view text, int base = 10) {
  T value{};
  const char* end = text.data() + text.size();
  std::from_chars_result result;
  if constexpr (std::is_floating_point_v<T>) {
    result = std::from_chars(text.data(), end, value);
  } else {
    result = std::from_chars(text.data(), end, value, base);
  }
  if (result.ec != std::errc() || result.ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_PARSE_NUMBER_H_
