// SOURCE_DATE_EPOCH (reproducible-builds.org): seconds since the Unix epoch.
#ifndef TRAINPKG_PACKAGER_LAYER_SOURCE_DATE_EPOCH_H_
#define TRAINPKG_PACKAGER_LAYER_SOURCE_DATE_EPOCH_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "base/environment.h"

namespace trainpkg::packager {

// nullopt when SOURCE_DATE_EPOCH is unset or empty; InvalidArgument naming
// the value when it is not a non-negative decimal integer.
absl::StatusOr<std::optional<int64_t>> SourceDateEpochFromEnvironment(
    const base::Environment& environment);

}  // namespace trainpkg::packager

#endif  // TRAINPKG_PACKAGER_LAYER_SOURCE_DATE_EPOCH_H_
