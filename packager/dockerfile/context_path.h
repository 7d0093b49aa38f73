// Lexical checks of COPY/ADD paths, done before any file is touched. The
// build-context code still checks what needs the filesystem (missing files,
// symlinks leaving the context).
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_CONTEXT_PATH_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_CONTEXT_PATH_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile {

// A source relative to the context root: a leading '/' means the root, empty
// and '.' segments are dropped, '..' is resolved; glob characters are kept.
// "." for the root itself. InvalidArgument (message without location) when
// '..' leaves the context, or for an empty source.
absl::StatusOr<std::string> NormalizeSourcePath(std::string_view source);

// An absolute destination: `dest` resolved against `workdir` (absolute),
// cleaned, with a trailing '/' kept (it says "into this directory").
// InvalidArgument when '..' climbs above '/' or `dest` is empty.
absl::StatusOr<std::string> ResolveDestination(std::string_view workdir, std::string_view dest);

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_CONTEXT_PATH_H_
