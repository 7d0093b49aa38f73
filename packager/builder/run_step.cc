#include "packager/builder/run_step.h"

#include <unistd.h>

#include <optional>
#include <random>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/run/container_bundle.h"
#include "packager/run/container_user.h"
#include "packager/run/mount_point_trace.h"
#include "packager/run/network_namespace.h"
#include "packager/run/overlay_diff.h"
#include "packager/run/overlay_mount.h"
#include "packager/run/runc_run.h"
#include "packager/run/slirp_network.h"
#include "packager/unpack/layer_unpacker.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDefaultPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
// BuildKit's host name for RUN containers.
constexpr std::string_view kHostname = "buildkitsandbox";
// Where runc mounts file systems of its own and RUN's files; created by
// runc when missing.
const std::string kMountPoints[] = {"/proc", "/dev", "/sys", "/etc/hosts", "/etc/resolv.conf"};

// Writes `content` to `path`, mode 0644 (the command may run as any user).
absl::Status WriteMountedFile(const fs::path& path, std::string_view content, fs::perms mode) {
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(path, content, base::FileSync::kNoSync));
  std::error_code ec;
  fs::permissions(path, mode, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("chmod {}", path.string()));
  return absl::OkStatus();
}

// The namespace the command runs in: slirp4netns's, or a loopback-only one.
struct RunNamespace {
  std::optional<run::SlirpNetwork> slirp;
  std::optional<run::NetworkNamespace> loopback;
  const fs::path& path() const { return slirp.has_value() ? slirp->path() : loopback->path(); }
};

absl::StatusOr<RunNamespace> MakeNamespace(RunNetwork network, const std::string& id,
                                           const RunStepOptions& options,
                                           const fs::path& work_dir) {
  RunNamespace ns;
  if (network == RunNetwork::kNone) {
    TP_ASSIGN_OR_RETURN(run::NetworkNamespace loopback, run::NetworkNamespace::Create(id));
    ns.loopback.emplace(std::move(loopback));
    return ns;
  }
  TP_ASSIGN_OR_RETURN(
      run::SlirpNetwork slirp,
      run::SlirpNetwork::Start(id, options.slirp4netns, work_dir / "slirp4netns.log"));
  ns.slirp.emplace(std::move(slirp));
  return ns;
}

// The build's layers applied over `base` in an overlay whose upper directory
// `work_dir/lower-upper` then holds them in overlayfs form.
absl::StatusOr<fs::path> ApplyLayers(const fs::path& base, std::span<const RunLayer> layers,
                                     const fs::path& work_dir) {
  const fs::path upper = work_dir / "lower-upper";
  TP_ASSIGN_OR_RETURN(
      run::OverlayMount merged,
      run::OverlayMount::Mount({base}, upper, work_dir / "lower-work", work_dir / "lower-merged"));
  for (const RunLayer& layer : layers) {
    TP_RETURN_IF_ERROR(
        unpack::UnpackLayer(layer.blob, layer.descriptor, layer.diff_id, merged.target(), {}));
  }
  TP_RETURN_IF_ERROR(merged.Unmount());
  return upper;
}

std::string ContainerId() {
  std::random_device random;
  return fmt::format("trainpkg-build-{}-{:08x}", ::getpid(), random());
}

}  // namespace

absl::StatusOr<run::OverlayMount> MountStageRootfs(const fs::path& base_rootfs,
                                                   std::span<const RunLayer> layers,
                                                   const fs::path& work_dir) {
  fs::path base = base_rootfs;
  if (base.empty()) {
    base = work_dir / "empty";
    std::error_code ec;
    fs::create_directories(base, ec);
    if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", base.string()));
  }
  // The stage's own layers are unpacked in an overlay of their own and their
  // upper dir becomes a lower here: the shared cached base rootfs is never
  // written, and this overlay's upper holds only what the command changes.
  std::vector<fs::path> lowers = {base};
  if (!layers.empty()) {
    TP_ASSIGN_OR_RETURN(fs::path applied, ApplyLayers(base, layers, work_dir));
    lowers.insert(lowers.begin(), applied);
  }
  return run::OverlayMount::Mount(lowers, work_dir / "upper", work_dir / "work",
                                  work_dir / "merged");
}

absl::StatusOr<LayerSource> RunStep(const fs::path& base_rootfs, std::span<const RunLayer> layers,
                                    const RunCommand& command, const fs::path& work_dir,
                                    const RunStepOptions& options) {
  const fs::path upper = work_dir / "upper";
  TP_ASSIGN_OR_RETURN(run::OverlayMount merged, MountStageRootfs(base_rootfs, layers, work_dir));
  TP_ASSIGN_OR_RETURN(run::ContainerUser user,
                      run::ResolveContainerUser(merged.target(), command.user));
  run::ContainerBundle bundle{
      .bundle_dir = work_dir / "bundle",
      .rootfs = merged.target(),
      .args = command.args,
      .env = command.env,
      .cwd = command.cwd.empty() ? "/" : command.cwd,
      .user = user,
      .bind_mounts = {},
      .devices = {},
      .readonly_rootfs = false,
      .private_tmp = false,
      .readonly_files = {},
      .hostname = std::string(kHostname),
      .network_namespace = {},
      .protect_host_files = false,
      .shared_shm = {},
  };
  for (size_t i = 0; i < command.files.size(); ++i) {
    const fs::path file = work_dir / "files" / std::to_string(i);
    TP_RETURN_IF_ERROR(WriteMountedFile(file, command.files[i].content, fs::perms(0755)));
    bundle.readonly_files.push_back({file, command.files[i].path});
  }
  // The command can resolve its own host name, as in a BuildKit RUN.
  std::vector<run::HostEntry> hosts = {{std::string(kHostname), "127.0.0.1"}};
  hosts.insert(hosts.end(), command.extra_hosts.begin(), command.extra_hosts.end());
  TP_ASSIGN_OR_RETURN(std::string host_resolv_conf,
                      run::ReadHostResolvConf(options.host_resolv_conf));
  const fs::path hosts_file = work_dir / "etc" / "hosts";
  const fs::path resolv_conf = work_dir / "etc" / "resolv.conf";
  TP_RETURN_IF_ERROR(WriteMountedFile(hosts_file, run::HostsFile(hosts), fs::perms(0644)));
  // Names resolve through slirp4netns's forwarder: the host's own resolver
  // is often on its loopback (127.0.0.53), which the namespace cannot reach.
  TP_RETURN_IF_ERROR(WriteMountedFile(
      resolv_conf, run::ResolvConfWithNameserver(host_resolv_conf, run::SlirpNetwork::kDnsServer),
      fs::perms(0644)));
  bundle.readonly_files.push_back({hosts_file, "/etc/hosts"});
  bundle.readonly_files.push_back({resolv_conf, "/etc/resolv.conf"});
  // Recorded before runc runs, which creates missing mount points in the
  // rootfs; RemoveFrom takes them out of the layer afterwards.
  const run::MountPointTrace mount_points =
      run::MountPointTrace::Record(merged.target(), kMountPoints);
  bool has_path = false;
  for (const std::string& kv : bundle.env) has_path = has_path || kv.rfind("PATH=", 0) == 0;
  // An image that sets no PATH still finds its tools, as under Docker, whose
  // default this is.
  if (!has_path) bundle.env.emplace_back(kDefaultPath);
  const std::string id = ContainerId();
  TP_ASSIGN_OR_RETURN(RunNamespace network, MakeNamespace(command.network, id, options, work_dir));
  bundle.network_namespace = network.path();
  TP_RETURN_IF_ERROR(run::WriteContainerBundle(bundle));
  TP_ASSIGN_OR_RETURN(run::RuncExit exit,
                      run::RuncRun(options.runc, bundle.bundle_dir, id, options.output));
  TP_RETURN_IF_ERROR(merged.Unmount());
  if (exit.exit_code != 0) {
    return absl::AbortedError(fmt::format("the command exited with code {}; its last output:\n{}",
                                          exit.exit_code, exit.output_tail));
  }
  TP_RETURN_IF_ERROR(mount_points.RemoveFrom(upper));
  return run::OverlayDiff(upper);
}

}  // namespace trainpkg::packager::builder
