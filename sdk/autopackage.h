// gcloud's autopackaging (`gcloud ai custom-jobs create
// --worker-pool-spec=...,local-package-path=DIR,...`): an image built FROM
// the executor with the package directory's code and dependencies in it,
// which every pool of the job then runs as its containerSpec.
//
//   jobspec::Autopackaging spec;   // from ParseWorkerPoolSpecFlags
//   TP_ASSIGN_OR_RETURN(sdk::AutopackagedImage image, sdk::Autopackage(spec, options));
//   jobspec::SetAutopackagedImage(job.job_spec.worker_pool_specs, image.image_uri);
//
// The Dockerfile is gcloud's (sdk/internal/autopackage_dockerfile.h; the
// facts and where we differ: docs/adr/2026-11-27-autopackaging.md), built by
// the packager with the package directory as the context (.dockerignore
// applies) into the local image store, tagged
// "localhost/trainpkg-autopackage:<hex>", hex a SHA-256 of the executor's
// manifest digest, the Dockerfile and every copied file's path, mode and
// content: the same inputs find the image and build nothing. With
// output_image_uri the image is pushed there too (layers compressed with
// gzip) and the pools run that reference.
//
// Not thread-safe per store.
#ifndef TRAINPKG_SDK_AUTOPACKAGE_H_
#define TRAINPKG_SDK_AUTOPACKAGE_H_

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/worker_pool_flag.h"
#include "registry/registry_client.h"

namespace trainpkg::sdk {

struct AutopackageOptions {
  std::filesystem::path home;  // job store home (sdk::DefaultJobStoreHome): images/, build-cache/
  std::filesystem::path cwd;   // a relative local-package-path starts here
  std::map<std::string, std::string> environment;  // pulls and pushes: docker's credentials
  std::function<void(std::string_view)> log;       // one line at a time; may be empty
  // Pushes to output_image_uri; null: a client with docker's credentials
  // (loopback registries over plain HTTP, as for pulls).
  std::shared_ptr<registry::RegistryClient> registry;
};

struct AutopackagedImage {
  std::string image_uri;  // what the pools run: output_image_uri when given, else store_tag
  std::string store_tag;  // "localhost/trainpkg-autopackage:<hex>"
  bool built = false;     // false: the store had it
};

// Checks the package before anything is built, each error starting
// "--worker-pool-spec #1: <key>=<value>": local-package-path must be a
// directory, the main file (script, or python-module's MODULE/AS/PATH.py)
// a file in it, each extra-packages entry an sdist or a wheel in it, each
// extra-dirs entry a directory in it (NotFound / InvalidArgument);
// executor-image-uri must resolve and have python3 (ResolvePythonExecutor's
// errors); output-image-uri must be a reference (InvalidArgument). Then
// builds (a failed RUN: the step, its exit code and its output's tail,
// prefixed with "building the image of local-package-path=DIR") and pushes
// (the registry's errors, naming output-image-uri). Nothing is left behind
// but the store's caches and the image.
absl::StatusOr<AutopackagedImage> Autopackage(const jobspec::Autopackaging& spec,
                                              const AutopackageOptions& options);

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_AUTOPACKAGE_H_
