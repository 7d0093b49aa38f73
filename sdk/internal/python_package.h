// The packages of a pythonPackageSpec on this machine: each packageUris
// entry becomes a local file the executor image can pip-install.
//
//   - "/abs/path" or "rel/path" (relative to the submitting process's
//     working directory) and "file:///abs/path";
//   - "gs://BUCKET/OBJECT" as "/gcs/BUCKET/OBJECT" (the Cloud Storage FUSE
//     mount Vertex gives its replicas) when that file exists here.
//
// Each must be a regular file named as pip expects: an sdist "*.tar.gz" (a
// gzip stream) or a wheel "*.whl" (a zip archive); its first bytes are
// checked so that a misnamed file fails here rather than inside pip.
#ifndef TRAINPKG_SDK_INTERNAL_PYTHON_PACKAGE_H_
#define TRAINPKG_SDK_INTERNAL_PYTHON_PACKAGE_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::internal {

// The local file `uri` names. Errors start with `field` (e.g.
// "jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[1]"):
// InvalidArgument for another scheme or a file that is not an sdist or a
// wheel, NotFound for an absent file (for gs://, naming the /gcs path
// tried).
absl::StatusOr<std::filesystem::path> LocalPackagePath(std::string_view uri, std::string_view field,
                                                       const std::filesystem::path& cwd);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_PYTHON_PACKAGE_H_
