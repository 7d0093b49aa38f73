// Integer-valued environment variables (ranks, sizes, ports), parsed strictly.
#ifndef TRAINPKG_TRAINER_RUNTIME_INTERNAL_ENV_INT_H_
#define TRAINPKG_TRAINER_RUNTIME_INTERNAL_ENV_INT_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/environment.h"

namespace trainpkg::runtime::internal {

// The value of `name`. InvalidArgument "NAME: not set (<why it is needed>)"
// when unset or empty.
absl::StatusOr<std::string> RequireEnv(const base::Environment& env, std::string_view name,
                                       std::string_view why);

// `value` (the value of `name`) as a base-10 integer in [min, max].
// InvalidArgument "NAME: expected an integer >= MIN, got \"VALUE\"" (or
// "from MIN to MAX" when max is not the default).
absl::StatusOr<int64_t> ParseEnvInt(std::string_view name, std::string_view value, int64_t min,
                                    int64_t max = std::numeric_limits<int64_t>::max());

}  // namespace trainpkg::runtime::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_INTERNAL_ENV_INT_H_
