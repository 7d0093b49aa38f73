// Turns a container-mode replica plan into a runc bundle and the process
// that runs it.
//
// Process args follow Vertex (Kubernetes) rules: containerSpec.command
// replaces the image's Entrypoint and containerSpec.args its Cmd; a command
// without args drops the image's Cmd. Environment, later entries winning:
// the image's Env (PATH defaulting to Docker's when the image sets none),
// containerSpec.env (with $(VAR) expansion against what precedes it), then
// the cluster env (CLUSTER_SPEC, TF_CONFIG, AIP_*, CUDA_VISIBLE_DEVICES).
// The working directory is the image's WorkingDir ("/" when unset) and the
// user its User, resolved in the rootfs. The host name is the replica's
// name ("workerpool1-0"); the container joins `network_namespace` (one per
// job: its replicas reach each other on 127.0.0.1), sees `readonly_files`
// (the job's /etc/hosts and /etc/resolv.conf) and cannot leave set-id
// files or file capabilities in the directories it writes
// (packager/run/container_bundle.h).
#ifndef TRAINPKG_SDK_LOCAL_INTERNAL_CONTAINER_REPLICA_H_
#define TRAINPKG_SDK_LOCAL_INTERNAL_CONTAINER_REPLICA_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/run/container_bundle.h"
#include "registry/oci/image_config.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/local/internal/runc_container_launcher.h"

namespace trainpkg::sdk::local::internal {

struct ContainerReplicaRequest {
  const sdk::internal::ReplicaPlan* plan = nullptr;  // REQUIRES: plan->image set
  const oci::ImageConfig* image = nullptr;           // the image's config
  std::filesystem::path rootfs;                      // its unpacked rootfs (RootfsCache)
  std::string container_id;                          // unique per job and replica
  std::filesystem::path bundle_dir;                  // created here
  std::map<std::string, std::string> cluster_env;
  std::vector<std::filesystem::path> bind_mounts;           // e.g. the base output directory
  std::vector<std::filesystem::path> devices;               // e.g. /dev/nvidia0
  std::map<std::string, std::string> runc_env;              // runc's own environment
  std::filesystem::path network_namespace;                  // "": the host's network (opt-in)
  std::vector<packager::run::ReadOnlyFile> readonly_files;  // bind-mounted read-only
  // The job's shared /dev/shm ("": a private one). Made mode 0700 by the
  // caller; handed to the first replica user that is not root, made sticky
  // and writable by all (as /dev/shm is) when replicas of different users
  // share it.
  std::filesystem::path shared_shm;
};

// The process args for `plan` on `image` (see above). InvalidArgument,
// naming the field, when they come out empty.
absl::StatusOr<std::vector<std::string>> ContainerArgs(const sdk::internal::ReplicaPlan& plan,
                                                       const oci::ContainerConfig& image);

// The container environment as NAME=value, in name order.
std::vector<std::string> ContainerEnv(const sdk::internal::ReplicaPlan& plan,
                                      const oci::ContainerConfig& image,
                                      const std::map<std::string, std::string>& cluster_env);

// Writes the bundle; returns the container to start with RuncRunSpec.
// Errors name the replica's imageUri field.
absl::StatusOr<RuncContainer> PrepareContainerReplica(const ContainerReplicaRequest& request);

}  // namespace trainpkg::sdk::local::internal

#endif  // TRAINPKG_SDK_LOCAL_INTERNAL_CONTAINER_REPLICA_H_
