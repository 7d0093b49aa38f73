// What each replica of a local job executes, derived from the job spec:
// every replica of every non-placeholder pool, pools in order. A pool whose
// imageUri is "local:PATH" runs PATH as a host process (process mode); any
// other imageUri names a container image that runs under runc (container
// mode), whose argv is only known once the image config is read. A
// pythonPackageSpec pool is a container-mode plan running
// `python3 -m <pythonModule> <args>` on its executor image, which
// PreparePythonPackageImages (python_package_image.h) replaces with the
// executor plus the pool's packages before the job starts.
#ifndef TRAINPKG_SDK_INTERNAL_REPLICA_PLAN_H_
#define TRAINPKG_SDK_INTERNAL_REPLICA_PLAN_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobspec/cluster_env.h"
#include "jobspec/custom_job.h"
#include "jobspec/image_uri.h"

namespace trainpkg::sdk::internal {

struct ReplicaPlan {
  jobspec::ReplicaRef ref;
  std::string program_field;         // where `program` came from, e.g.
                                     // "jobSpec.workerPoolSpecs[1].containerSpec.imageUri"
  std::string program;               // process mode: the local: executable, or command[0]
  std::vector<std::string> argv;     // process mode: command, or [executable], then args
  std::vector<jobspec::EnvVar> env;  // containerSpec.env, expanded at start
                                     // (pythonPackageSpec.env for those pools)
  // Container mode only (image set, an oci-layout or registry image): the
  // image and the containerSpec overrides of its Entrypoint (command) and
  // Cmd (args).
  std::optional<jobspec::ImageUri> image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  int32_t accelerator_count = 0;  // machineSpec.acceleratorCount
  // pythonPackageSpec pools: its packageUris, to install into `image`
  // (the executorImageUri until PreparePythonPackageImages ran).
  std::optional<std::vector<std::string>> python_packages;
};

// InvalidArgument, naming the field, for a pool without containerSpec, an
// imageUri or executorImageUri that jobspec::ImageUri::Parse refuses, or a
// "local:" executorImageUri.
absl::StatusOr<std::vector<ReplicaPlan>> PlanReplicas(const jobspec::CustomJobSpec& spec);

// Rewrites each relative "local:path" as "local:<cwd>/path".
void AbsolutizeLocalImages(jobspec::CustomJobSpec& spec, const std::filesystem::path& cwd);

// NotFound / PermissionDenied, naming the field, when a replica's program
// cannot be executed; a program without '/' is looked up on `path_env`.
// Container-mode plans are not checked here (their image is resolved when
// the job starts).
absl::Status CheckExecutables(const std::vector<ReplicaPlan>& plans, std::string_view path_env);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_REPLICA_PLAN_H_
