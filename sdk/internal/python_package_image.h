// The image a pythonPackageSpec pool runs on the local backend: its
// executorImageUri with its packageUris pip-installed, built once per job by
// the packager (the builder `trainpkg build` uses) into the local image store
// and kept there, tagged by what went in:
//
//   FROM <executor, as resolved: oci:<store>:<reference> or oci:DIR[:TAG]>
//   ARG PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore ...
//   COPY packages/ /opt/trainpkg/python-packages/
//   RUN ["python3", "-m", "pip", "install", "--no-cache-dir", <each package>]
//
// pip resolves the packages' own dependencies from its index (PyPI, or what
// the image's pip.conf / PIP_INDEX_URL name), as Vertex's executors do; ARG
// (not ENV) keeps the pip settings out of the image's config. See
// docs/adr/2026-11-27-python-package-spec-local.md.
//
// The tag is "localhost/trainpkg-python-package:<hex>", hex a SHA-256 of the
// executor's manifest digest, the install command and every package's name
// and content digest: a second job with the same inputs finds the image in
// the store and builds nothing.
#ifndef TRAINPKG_SDK_INTERNAL_PYTHON_PACKAGE_IMAGE_H_
#define TRAINPKG_SDK_INTERNAL_PYTHON_PACKAGE_IMAGE_H_

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sdk/internal/replica_plan.h"

namespace trainpkg::sdk::internal {

struct PythonPackageImageOptions {
  std::filesystem::path home;                      // job store home: images/, build-cache/, rootfs/
  std::filesystem::path cwd;                       // relative packageUris start here
  std::map<std::string, std::string> environment;  // pulls, proxies for pip
  std::function<void(std::string_view)> log;       // one line at a time; may be empty
};

// For every pythonPackageSpec plan (python_packages set): resolves its
// executor (pulling it into the store when needed), checks that it has
// python3, builds or finds the image with its packages, and sets the plan's
// image to that image's store tag. Plans sharing executor and packages
// share one image. Errors name the field: executorImageUri when it cannot be
// resolved or has no python3 on its PATH (FailedPrecondition), packageUris[j]
// (LocalPackagePath's errors), and, when the build fails, the pool with the
// builder's error (the RUN step, pip's exit code and the tail of its output).
// Nothing is left behind but the store's caches (the resolved executor, its
// unpacked rootfs, cached layers).
absl::Status PreparePythonPackageImages(std::vector<ReplicaPlan>& plans,
                                        const PythonPackageImageOptions& options);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_PYTHON_PACKAGE_IMAGE_H_
