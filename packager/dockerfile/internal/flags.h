// Instruction flags (`--name=value`, `--bool`) checked against the flags an
// instruction accepts, with BuildKit's error rules.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_FLAGS_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_FLAGS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile::internal {

struct FlagSpec {
  std::string_view name;
  bool is_bool = false;
};

// name -> value ("true"/"false" for bool flags). InvalidArgument (message
// without location) for an unknown or repeated flag, a missing value, or a
// bool flag with a value other than true/false; unknown-flag messages list
// the accepted flags and suggest the nearest one.
absl::StatusOr<std::map<std::string, std::string>> ParseFlags(
    const std::vector<std::string>& words, const std::vector<FlagSpec>& accepted);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_FLAGS_H_
