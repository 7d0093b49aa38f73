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
// The container shares the host's network (no network namespace: replicas
// reach each other on 127.0.0.1) and UTS namespace, and has its own pid,
// ipc and mount namespaces; /proc, /dev (tmpfs, with runc's default
// devices), /dev/pts, /dev/shm, /dev/mqueue and /sys (read-only) are mounted
// as `runc spec` does; each `bind_mounts` path is mounted read-write at the
// same path, so paths in the cluster env (AIP_MODEL_DIR, ...) stay valid;
// each `readonly_files` host file is bind-mounted read-only at its
// destination (a RUN heredoc script under /dev, never part of the rootfs).
// Docker's default capability set, no_new_privileges, and RLIMIT_NOFILE
// soft = hard = this process's hard limit (at most 1048576).
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
};

// Writes the bundle. Errors name the path that could not be written or the
// device that could not be read.
absl::Status WriteContainerBundle(const ContainerBundle& bundle);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_CONTAINER_BUNDLE_H_
