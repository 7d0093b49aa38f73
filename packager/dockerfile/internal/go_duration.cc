#include "packager/dockerfile/internal/go_duration.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"

namespace trainpkg::packager::dockerfile::internal {
namespace {

// Go's time.ParseDuration units (HEALTHCHECK's flags are Go durations),
// micro in both spellings Go accepts: U+00B5 and U+03BC.
constexpr std::pair<std::string_view, double> kUnits[] = {
    {"ns", 1.0}, {"us", 1e3}, {"\xC2\xB5s", 1e3}, {"\xCE\xBCs", 1e3},
    {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},        {"h", 3600e9},
};

}  // namespace

absl::StatusOr<std::chrono::nanoseconds> ParseGoDuration(std::string_view text) {
  const std::string original(text);
  auto bad = [&] {
    return absl::InvalidArgumentError(fmt::format(
        "invalid duration '{}'; write a number with a unit (ns, us, ms, s, m, h), e.g. 30s or "
        "1m30s",
        original));
  };
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  // As in Go, only a bare 0 may omit the unit.
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return bad();
  double total = 0;
  while (!text.empty()) {
    size_t n = 0;
    bool digits = false;
    while (n < text.size() && ((text[n] >= '0' && text[n] <= '9') || text[n] == '.')) {
      digits = digits || text[n] != '.';
      ++n;
    }
    if (!digits || std::count(text.begin(), text.begin() + n, '.') > 1) return bad();
    double value = std::stod(std::string(text.substr(0, n)));
    text.remove_prefix(n);
    double scale = 0;
    size_t unit_len = 0;
    // The longest unit that matches: "1ms" is a millisecond, not a minute and a stray "s".
    for (const auto& [unit, factor] : kUnits) {
      if (text.substr(0, unit.size()) == unit && unit.size() > unit_len) {
        scale = factor;
        unit_len = unit.size();
      }
    }
    if (unit_len == 0) return bad();
    text.remove_prefix(unit_len);
    total += value * scale;
    // Go's limit: the int64 nanoseconds of a time.Duration (about 292 years).
    if (total > 9.2e18) return bad();
  }
  auto ns = static_cast<int64_t>(std::llround(total));
  return std::chrono::nanoseconds(negative ? -ns : ns);
}

}  // namespace trainpkg::packager::dockerfile::internal
