// gcloud's --worker-pool-spec syntax:
//   machine-type=n1-standard-4,replica-count=2,container-image-uri=IMAGE,
//   accelerator-type=NVIDIA_TESLA_T4,accelerator-count=1
// Keys accepted: machine-type, replica-count, accelerator-type,
// accelerator-count, container-image-uri, executor-image-uri, python-module,
// disk-type, disk-size, and gcloud's autopackaging keys (first flag only):
// local-package-path, script, requirements, extra-packages, extra-dirs
// (';'-separated lists), output-image-uri. An empty value ("") is a
// placeholder pool. gcloud's rules: command_lib/ai/custom_jobs/validation.py;
// ours: docs/adr/2026-11-27-autopackaging.md.
#ifndef TRAINPKG_JOBSPEC_WORKER_POOL_FLAG_H_
#define TRAINPKG_JOBSPEC_WORKER_POOL_FLAG_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::jobspec {

// What the first flag's local-package-path asks for: an image built FROM
// executor_image_uri with the package directory's code in it, which every
// pool then runs (`gcloud ai custom-jobs create`'s autopackaging).
struct Autopackaging {
  std::string executor_image_uri;
  std::string local_package_path;           // as given (relative: to the working directory)
  std::string python_module;                // exactly one of python_module and script
  std::string script;                       // relative to local_package_path
  std::vector<std::string> requirements;    // pip requirement specifiers
  std::vector<std::string> extra_packages;  // relative to local_package_path
  std::vector<std::string> extra_dirs;      // relative to local_package_path
  std::string output_image_uri;             // "": the image stays in the local store
  bool operator==(const Autopackaging&) const = default;
};

struct WorkerPoolFlags {
  std::vector<WorkerPoolSpec> pools;  // one per flag, in order
  // Set when the first flag has local-package-path: every non-placeholder
  // pool then has a containerSpec whose imageUri is "" until the image is
  // built (SetAutopackagedImage).
  std::optional<Autopackaging> autopackaging;
};

// Parses one flag value that is not autopackaged. InvalidArgument names the
// key and what is valid (unknown keys, repeated keys, non-numeric counts,
// missing '=', autopackaging keys). replica-count defaults to 1 when the
// pool is not a placeholder.
absl::StatusOr<WorkerPoolSpec> ParseWorkerPoolSpecFlag(std::string_view value);

// Parses every flag of a command, in order, with gcloud's rules across them:
// local-package-path only in the first; with it, that flag needs
// executor-image-uri and exactly one of python-module and script, and the
// other flags name no software (image, module, script, packages); without
// it, script, requirements, extra-packages, extra-dirs and output-image-uri
// are refused. script, extra-packages and extra-dirs must be relative paths
// that stay inside the package. InvalidArgument starting
// "--worker-pool-spec #N: " (N from 1). Nothing is read from the disk.
absl::StatusOr<WorkerPoolFlags> ParseWorkerPoolSpecFlags(const std::vector<std::string>& values);

// Sets the imageUri of every pool that ParseWorkerPoolSpecFlags left
// waiting for the autopackaged image.
void SetAutopackagedImage(std::vector<WorkerPoolSpec>& pools, const std::string& image_uri);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_WORKER_POOL_FLAG_H_
