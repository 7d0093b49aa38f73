#include "packager/layer/source_date_epoch.h"

#include <charconv>
#include <string>

#include "fmt/format.h"

namespace trainpkg::packager {

absl::StatusOr<std::optional<int64_t>> SourceDateEpochFromEnvironment(
    const base::Environment& environment) {
  std::optional<std::string> value = environment.Get("SOURCE_DATE_EPOCH");
  if (!value.has_value() || value->empty()) return std::optional<int64_t>();
  int64_t seconds = 0;
  const char* end = value->data() + value->size();
  auto [ptr, ec] = std::from_chars(value->data(), end, seconds);
  if (ec != std::errc() || ptr != end || seconds < 0) {
    return absl::InvalidArgumentError(
        fmt::format("SOURCE_DATE_EPOCH=\"{}\" is not a non-negative number of seconds", *value));
  }
  return std::optional<int64_t>(seconds);
}

}  // namespace trainpkg::packager
