// What each replica of a process-mode local job executes, derived from the
// job spec: every replica of every non-placeholder pool, pools in order.
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

namespace trainpkg::sdk::internal {

struct ReplicaPlan {
  jobspec::ReplicaRef ref;
  std::string program_field;         // where `program` came from, e.g.
                                     // "jobSpec.workerPoolSpecs[1].containerSpec.imageUri"
  std::string program;               // the local: executable, or containerSpec.command[0]
  std::vector<std::string> argv;     // command, or [executable], then args
  std::vector<jobspec::EnvVar> env;  // containerSpec.env, expanded at start
};

// "local:/abs/exe" -> "/abs/exe"; nullopt for any other image URI.
std::optional<std::string_view> LocalImagePath(std::string_view image_uri);

// Unimplemented, naming the field, for container images (they run under runc
// in a later release) and pythonPackageSpec pools.
absl::StatusOr<std::vector<ReplicaPlan>> PlanReplicas(const jobspec::CustomJobSpec& spec);

// Rewrites each relative "local:path" as "local:<cwd>/path".
void AbsolutizeLocalImages(jobspec::CustomJobSpec& spec, const std::filesystem::path& cwd);

// NotFound / PermissionDenied, naming the field, when a replica's program
// cannot be executed; a program without '/' is looked up on `path_env`.
absl::Status CheckExecutables(const std::vector<ReplicaPlan>& plans, std::string_view path_env);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_REPLICA_PLAN_H_
