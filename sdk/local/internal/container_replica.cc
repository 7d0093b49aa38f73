#include "sdk/local/internal/container_replica.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/run/container_bundle.h"
#include "packager/run/container_user.h"
#include "sdk/internal/env_expansion.h"

namespace trainpkg::sdk::local::internal {
namespace {

using packager::run::ContainerBundle;
using packager::run::ContainerUser;
using packager::run::ResolveContainerUser;
using packager::run::WriteContainerBundle;

constexpr char kDefaultPath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

absl::Status InField(const sdk::internal::ReplicaPlan& plan, const absl::Status& status) {
  return base::WithContext(status,
                           fmt::format("{} (\"{}\")", plan.program_field, plan.image->ToString()));
}

// Lets `user` use the job's /dev/shm directory: root needs nothing; the
// first other user gets it; a second, different one makes it shared by all
// (sticky, as /dev/shm itself).
absl::Status ShareShmWith(const std::filesystem::path& dir, const ContainerUser& user) {
  if (user.uid == 0) return absl::OkStatus();
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("the job's /dev/shm {}", dir.string()));
  }
  if (st.st_uid == user.uid) return absl::OkStatus();
  if (st.st_uid == 0 && (st.st_mode & 07777) == 0700) {
    if (::chown(dir.c_str(), user.uid, user.gid) != 0) {
      return base::ErrnoToStatus(errno,
                                 fmt::format("handing {} to uid {}", dir.string(), user.uid));
    }
    return absl::OkStatus();
  }
  if (::chmod(dir.c_str(), 01777) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("sharing {} between users", dir.string()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ContainerArgs(const sdk::internal::ReplicaPlan& plan,
                                                       const oci::ContainerConfig& image) {
  // Vertex's rule: command replaces the image's ENTRYPOINT and args its CMD;
  // with a command but no args the image's CMD is dropped, as Docker drops it
  // under a new ENTRYPOINT.
  std::vector<std::string> args = plan.command.empty() ? image.entrypoint : plan.command;
  const std::vector<std::string>& tail =
      !plan.args.empty() || !plan.command.empty() ? plan.args : image.cmd;
  args.insert(args.end(), tail.begin(), tail.end());
  if (args.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: the image has neither Entrypoint nor Cmd; set containerSpec.command",
                    plan.program_field));
  }
  return args;
}

std::vector<std::string> ContainerEnv(const sdk::internal::ReplicaPlan& plan,
                                      const oci::ContainerConfig& image,
                                      const std::map<std::string, std::string>& cluster_env) {
  std::map<std::string, std::string> env;
  for (const std::string& entry : image.env) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    env.insert_or_assign(entry.substr(0, eq), entry.substr(eq + 1));
  }
  env.try_emplace("PATH", kDefaultPath);
  sdk::internal::ApplyEnvVars(plan.env, env);
  // Last: the replica's identity (CLUSTER_SPEC, TF_CONFIG, ...) is the
  // backend's to set, whatever the image or the job says.
  for (const auto& [name, value] : cluster_env) env.insert_or_assign(name, value);
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

absl::StatusOr<RuncContainer> PrepareContainerReplica(const ContainerReplicaRequest& request) {
  const sdk::internal::ReplicaPlan& plan = *request.plan;
  const oci::ContainerConfig& image = request.image->config;
  TP_ASSIGN_OR_RETURN(std::vector<std::string> args, ContainerArgs(plan, image));
  absl::StatusOr<ContainerUser> user = ResolveContainerUser(request.rootfs, image.user);
  if (!user.ok()) return InField(plan, user.status());
  if (!request.shared_shm.empty()) {
    if (absl::Status shared = ShareShmWith(request.shared_shm, *user); !shared.ok()) {
      return InField(plan, shared);
    }
  }
  ContainerBundle bundle{
      .bundle_dir = request.bundle_dir,
      .rootfs = request.rootfs,
      .args = std::move(args),
      .env = ContainerEnv(plan, image, request.cluster_env),
      .cwd = image.working_dir.empty() ? "/" : image.working_dir,
      .user = *std::move(user),
      .bind_mounts = request.bind_mounts,
      .devices = request.devices,
      // The rootfs is the unpacked image every replica and job of that image
      // shares (RootfsCache): no container may write to it; /tmp is its own.
      .readonly_rootfs = true,
      .private_tmp = true,
      .readonly_files = request.readonly_files,
      .hostname = plan.ref.Name(),
      .network_namespace = request.network_namespace,
      .protect_host_files = true,
      .shared_shm = request.shared_shm,
  };
  absl::Status written = WriteContainerBundle(bundle);
  if (!written.ok()) return InField(plan, written);
  return RuncContainer{
      .id = request.container_id, .bundle_dir = request.bundle_dir, .env = request.runc_env};
}

}  // namespace trainpkg::sdk::local::internal
