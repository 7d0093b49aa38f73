// The Duration and Timestamp functions of custom_job_json.h: the proto3 JSON
// forms of google.protobuf.Duration ("1.500s") and Timestamp (RFC 3339, UTC).
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/time/civil_time.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/internal/parse_number.h"

namespace trainpkg::jobspec {
namespace {

// google.protobuf.Duration's documented range: about +-10,000 years.
constexpr int64_t kMaxDurationSeconds = 315'576'000'000;
constexpr size_t kMaxFractionDigits = 9;

// "", ".500", ".000250" or ".000000001": 0, 3, 6 or 9 digits, as proto3 JSON
// writers emit them.
std::string FractionDigits(int64_t nanos) {
  if (nanos == 0) return "";
  if (nanos % 1'000'000 == 0) return fmt::format(".{:03}", nanos / 1'000'000);
  if (nanos % 1'000 == 0) return fmt::format(".{:06}", nanos / 1'000);
  return fmt::format(".{:09}", nanos);
}

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::Status InvalidDuration(std::string_view text) {
  return absl::InvalidArgumentError(fmt::format(
      "invalid duration \"{}\": expected seconds with an 's' suffix, e.g. \"3600s\" or \"1.5s\"",
      text));
}

}  // namespace

std::string FormatDuration(absl::Duration d) {
  if (d < absl::ZeroDuration()) return fmt::format("-{}", jobspec::FormatDuration(-d));
  absl::Duration remainder;
  int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &remainder);
  return fmt::format("{}{}s", seconds, FractionDigits(absl::ToInt64Nanoseconds(remainder)));
}

absl::StatusOr<absl::Duration> ParseDuration(std::string_view text) {
  std::string_view rest = text;
  bool negative = rest.starts_with('-');
  if (negative) rest.remove_prefix(1);
  if (!rest.ends_with('s')) return InvalidDuration(text);
  rest.remove_suffix(1);
  std::string_view whole = rest;
  std::string_view fraction;
  if (size_t dot = rest.find('.'); dot != std::string_view::npos) {
    whole = rest.substr(0, dot);
    fraction = rest.substr(dot + 1);
    if (!AllDigits(fraction) || fraction.size() > kMaxFractionDigits) {
      return InvalidDuration(text);
    }
  }
  std::optional<int64_t> seconds = internal::ParseNumber<int64_t>(whole);
  if (!AllDigits(whole) || !seconds.has_value() || *seconds > kMaxDurationSeconds) {
    return InvalidDuration(text);
  }
  int64_t nanos = 0;
  if (!fraction.empty()) {
    std::string padded(fraction);
    padded.resize(kMaxFractionDigits, '0');
    nanos = internal::ParseNumber<int64_t>(padded).value_or(0);
  }
  absl::Duration d = absl::Seconds(*seconds) + absl::Nanoseconds(nanos);
  return negative ? -d : d;
}

std::string FormatTimestamp(absl::Time t) {
  int64_t seconds = absl::ToUnixSeconds(t);  // rounds toward negative infinity
  absl::Time whole = absl::FromUnixSeconds(seconds);
  return fmt::format("{}{}Z", absl::FormatTime("%Y-%m-%dT%H:%M:%S", whole, absl::UTCTimeZone()),
                     FractionDigits(absl::ToInt64Nanoseconds(t - whole)));
}

absl::StatusOr<absl::Time> ParseTimestamp(std::string_view text) {
  absl::Time t;
  std::string error;
  // The digit check keeps out absl's "infinite-future" / "infinite-past".
  bool parsed = !text.empty() && absl::ascii_isdigit(static_cast<unsigned char>(text[0])) &&
                absl::ParseTime(absl::RFC3339_full, std::string(text), &t, &error);
  const absl::Time min = absl::FromCivil(absl::CivilSecond(1, 1, 1, 0, 0, 0), absl::UTCTimeZone());
  const absl::Time max =
      absl::FromCivil(absl::CivilSecond(10000, 1, 1, 0, 0, 0), absl::UTCTimeZone());
  if (!parsed || t < min || t >= max) {
    return absl::InvalidArgumentError(
        fmt::format("invalid timestamp \"{}\": expected RFC 3339 between years 1 and 9999, e.g. "
                    "\"2026-11-22T02:00:00Z\"",
                    text));
  }
  return t;
}

}  // namespace trainpkg::jobspec
