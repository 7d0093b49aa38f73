// Which images a job sent to `trainpkg serve` may run. serve runs jobs as
// the user who started it (often root, for runc), so what a caller may run
// is narrowed to what the user allowed when starting serve:
//   local:PATH   a host executable, run outside any container: only with
//                --allow-local-executables.
//   oci:DIR[:TAG] and registry references already in the local image store
//                (<home>/images: `trainpkg build -t`, `trainpkg pull`, earlier
//                jobs): run in containers, always allowed.
//   other registry references (which would be pulled): only when their
//                registry (host[:port] as in the reference, "docker.io" for
//                Docker Hub) was named with --allow-registry.
// A pythonPackageSpec's executorImageUri follows the same rules; its
// packageUris are files of this host (copied into an image and installed
// there), so such a pool runs only with --allow-local-executables.
// Checked before anything is created, pulled or run.
#ifndef TRAINPKG_SDK_SERVE_IMAGE_POLICY_H_
#define TRAINPKG_SDK_SERVE_IMAGE_POLICY_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "jobspec/custom_job.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {

struct ImagePolicy {
  bool allow_local_executables = false;
  std::vector<std::string> allowed_registries;  // "host[:port]", compared ignoring case
};

// OK when every worker pool of `spec` may run under `policy`, looking
// images up in the store under `home`. Otherwise PermissionDenied (or
// InvalidArgument for an imageUri that is no reference) for the first pool
// that may not, and `violation` names its field, e.g.
// "<field_prefix>.workerPoolSpecs[0].containerSpec.imageUri", with a
// description naming the flag that would allow it.
absl::Status CheckJobImages(const jobspec::CustomJobSpec& spec, std::string_view field_prefix,
                            const ImagePolicy& policy, const std::filesystem::path& home,
                            vertex::FieldViolation& violation);

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_IMAGE_POLICY_H_
