// The one error format of the Dockerfile parser and planner.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_PARSE_ERROR_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_PARSE_ERROR_H_

#include <string_view>

#include "absl/status/status.h"
#include "packager/dockerfile/instruction.h"

namespace trainpkg::packager::dockerfile::internal {

// InvalidArgument "PATH:LINE: KEYWORD: message" (LINE: the first line).
absl::Status LineError(std::string_view path, const SourceRange& lines, std::string_view keyword,
                       std::string_view message);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_PARSE_ERROR_H_
