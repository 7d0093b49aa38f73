#include "trainer_runtime/internal/env_int.h"

#include <charconv>
#include <optional>

#include "fmt/format.h"

namespace trainpkg::runtime::internal {

absl::StatusOr<std::string> RequireEnv(const base::Environment& env, std::string_view name,
                                       std::string_view why) {
  std::optional<std::string> value = env.Get(name);
  if (!value.has_value() || value->empty()) {
    return absl::InvalidArgumentError(fmt::format("{}: not set ({})", name, why));
  }
  return *std::move(value);
}

absl::StatusOr<int64_t> ParseEnvInt(std::string_view name, std::string_view value, int64_t min,
                                    int64_t max) {
  int64_t parsed = 0;
  const char* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, parsed);
  if (value.empty() || ec != std::errc() || ptr != end || parsed < min || parsed > max) {
    std::string range = max == std::numeric_limits<int64_t>::max()
                            ? fmt::format(">= {}", min)
                            : fmt::format("from {} to {}", min, max);
    return absl::InvalidArgumentError(
        fmt::format("{}: expected an integer {}, got \"{}\"", name, range, value));
  }
  return parsed;
}

}  // namespace trainpkg::runtime::internal
