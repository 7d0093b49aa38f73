// Durations written as Go's time.ParseDuration reads them (HEALTHCHECK).
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_GO_DURATION_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_GO_DURATION_H_

#include <chrono>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile::internal {

// "300ms", "1.5h", "2h45m", "0": an optional sign, then decimal numbers each
// with a unit (ns, us, µs, ms, s, m, h). InvalidArgument otherwise.
absl::StatusOr<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_GO_DURATION_H_
