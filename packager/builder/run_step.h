// A Dockerfile RUN: the stage's filesystem is put together from the base
// image's unpacked rootfs (read-only, from a RootfsCache) and the layers the
// build made on top of it, the command runs there under runc, and what it
// changed comes back as a layer source.
//
//   work/lower-upper  the build's layers applied over the base (an overlay)
//   work/upper        the command's changes (the RUN's overlay upper)
//   work/merged       the container's root while it runs
//   work/bundle       the runtime bundle (packager/run/container_bundle.h)
//
// The container: its own pid/ipc/mount/UTS namespaces (host name
// "buildkitsandbox", as BuildKit's), a network namespace of its own with
// outbound access through slirp4netns but not to the host's loopback
// (packager/run/slirp_network.h; like `docker build`, RUN reaches the
// network), or with RunNetwork::kNone one with only a loopback interface;
// the capabilities and seccomp profile of packager/run/container_bundle.h,
// no_new_privileges, the stage's Env, WorkingDir (created when missing) and
// User (names looked up in the stage's /etc/passwd and /etc/group).
// Two files are bind-mounted read-only, as BuildKit does: /etc/hosts
// (localhost, buildkitsandbox -> 127.0.0.1, then the command's
// extra_hosts) and /etc/resolv.conf (the host's, with slirp4netns's DNS
// forwarder as the only nameserver: the host's may be a loopback stub the
// namespace cannot reach; under kNone that address has no route, so a
// lookup fails at once). Nothing else of the host is mounted into it.
// Neither file, nor the mount points runc creates for them and for /proc,
// /dev and /sys (packager/run/mount_point_trace.h), is part of the diff. Needs root, overlayfs, runc (crun
// fails on hybrid cgroups) and slirp4netns. Containers, mounts and the
// namespace are recorded in the process's HostResourceLedger: a killed
// build leaves none behind.
#ifndef TRAINPKG_PACKAGER_BUILDER_RUN_STEP_H_
#define TRAINPKG_PACKAGER_BUILDER_RUN_STEP_H_

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/layer/layer_entry.h"
#include "packager/run/hosts_file.h"
#include "packager/run/overlay_mount.h"
#include "packager/run/resolv_conf.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"

namespace trainpkg::packager::builder {

// A layer the build made, to apply over the base rootfs.
struct RunLayer {
  std::filesystem::path blob;
  oci::Descriptor descriptor;
  oci::Digest diff_id;
};

// RUN's network (`trainpkg build --network`, `RUN --network`).
enum class RunNetwork {
  kDefault,  // outbound access through slirp4netns, not the host's loopback
  kNone,     // a namespace with only a loopback interface
};

struct RunCommand {
  // A file the command reads, mounted read-only for this run only and never
  // part of the layer: a heredoc script that starts with "#!", run directly
  // from BuildKit's /dev/pipes/<name>.
  struct File {
    std::string path;     // absolute, in the container, under /dev (runc's tmpfs)
    std::string content;  // mode 0755
  };

  std::vector<std::string> args;  // the argv (SHELL already applied); REQUIRES: non-empty
  std::vector<std::string> env;   // NAME=value; PATH gets Docker's default when absent
  std::string cwd = "/";          // absolute
  std::string user;               // image config User syntax; "" is root
  std::vector<File> files;
  RunNetwork network = RunNetwork::kDefault;
  std::vector<run::HostEntry> extra_hosts;  // /etc/hosts lines after the sandbox's own
};

struct RunStepOptions {
  std::string runc = "runc";                     // the runtime binary
  std::string slirp4netns = "slirp4netns";       // RUN's network
  std::function<void(std::string_view)> output;  // the command's output; may be empty
  std::filesystem::path host_resolv_conf = run::kHostResolvConf;  // read for its search/options
};

// The stage's filesystem, `layers` applied over `base_rootfs` ("": an empty
// root), mounted at work_dir/merged (writes go to work_dir/upper) until the
// returned mount goes. Errors: those of the overlay mounts and unpacking.
absl::StatusOr<run::OverlayMount> MountStageRootfs(const std::filesystem::path& base_rootfs,
                                                   std::span<const RunLayer> layers,
                                                   const std::filesystem::path& work_dir);

// Runs `command` over `base_rootfs` ("": an empty root) and `layers`, in
// `work_dir` (created; the caller removes it once the layer is written: the
// returned source reads from work_dir/upper). Errors: Aborted "exited with
// code N" plus the output's tail when the command fails; those of the
// overlay mounts, layer unpacking, user lookup, reading the host's
// resolv.conf and runc otherwise.
absl::StatusOr<LayerSource> RunStep(const std::filesystem::path& base_rootfs,
                                    std::span<const RunLayer> layers, const RunCommand& command,
                                    const std::filesystem::path& work_dir,
                                    const RunStepOptions& options);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_RUN_STEP_H_
