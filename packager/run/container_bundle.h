// An OCI runtime bundle (runtime-spec config.json) for runc: a replica of the
// local backend, or a Dockerfile RUN. Replicas of one image share its
// unpacked rootfs:
//
//   <bundle_dir>/config.json   root.path = the shared rootfs, read-only
//   <bundle_dir>/tmp/          this replica's writable /tmp
//
// A RUN (readonly_rootfs = false, private_tmp = false) writes into its
// rootfs, /tmp included, so that what it writes is captured.
//
// The container has its own pid, ipc, mount and UTS (host name `hostname`)
// namespaces, and joins the network namespace at `network_namespace`
// (network_namespace.h; "" shares the host's network: an explicit opt-in of
// the caller's user). /proc, /dev (tmpfs, with runc's default devices),
// /dev/pts, /dev/shm (or `shared_shm`), /dev/mqueue and /sys (read-only) are
// mounted as `runc spec` does; each `bind_mounts` path is mounted read-write at the
// same path, so paths in the cluster env (AIP_MODEL_DIR, ...) stay valid;
// each `readonly_files` host file is bind-mounted read-only at its
// destination (a RUN heredoc script under /dev, never part of the rootfs).
// Every bind mount is nosuid,nodev. Docker's default capability set without
// CAP_NET_RAW and CAP_MKNOD (and without CAP_SETFCAP with
// `protect_host_files`), the seccomp profile of seccomp_profile.h,
// no_new_privileges, and RLIMIT_NOFILE soft = hard = this process's hard
// limit (at most 1048576). No user namespace: see
// docs/adr/2026-11-27-container-isolation.md.
#ifndef TRAINPKG_PACKAGER_RUN_CONTAINER_BUNDLE_H_
#define TRAINPKG_PACKAGER_RUN_CONTAINER_BUNDLE_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "packager/run/container_user.h"

namespace trainpkg::packager::run {

// A host file bind-mounted read-only into the container.
struct ReadOnlyFile {
  std::filesystem::path source;  // absolute host path of a regular file
  std::string destination;       // absolute path in the container (created by runc)
};

struct ContainerBundle {
  std::filesystem::path bundle_dir;  // created (parents too)
  std::filesystem::path rootfs;      // absolute
  std::vector<std::string> args;     // REQUIRES: non-empty
  std::vector<std::string> env;      // NAME=value
  std::string cwd = "/";             // absolute
  ContainerUser user;
  std::vector<std::filesystem::path> bind_mounts;  // absolute host directories
  std::vector<std::filesystem::path> devices;      // host device nodes to expose as they are
  bool readonly_rootfs = true;                     // false: the process writes into `rootfs`
  bool private_tmp = true;  // false: no <bundle_dir>/tmp, /tmp is the rootfs's
  std::vector<ReadOnlyFile> readonly_files;
  std::string hostname;                     // REQUIRES: non-empty
  std::filesystem::path network_namespace;  // "": the host's network
  // For containers that write into host directories (job replicas): no
  // file of theirs may carry set-id bits (seccomp) or file capabilities
  // (CAP_SETFCAP dropped), so nothing they write there raises privileges on
  // the host.
  bool protect_host_files = false;
  // "": /dev/shm is a tmpfs of the container's own. Else this host
  // directory is bind-mounted there (nosuid, nodev, noexec): the replicas of
  // one job share it, so their shared-memory collectives can
  // (collectives/shm_communicator.h).
  std::filesystem::path shared_shm;
};

// Writes the bundle. Errors name the path that could not be written or the
// device that could not be read.
absl::Status WriteContainerBundle(const ContainerBundle& bundle);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_CONTAINER_BUNDLE_H_
