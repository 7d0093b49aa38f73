// What runc leaves in a writable rootfs for its mounts: the mount points it
// creates where a destination is missing (with missing parent
// directories), and, when the rootfs is an overlay, the copies of existing
// directories that overlayfs makes in the upper directory when something is
// created in them. Recorded before the container starts, removed from the
// overlay's upper directory after it ends, so that a RUN's layer holds only
// what its command changed:
//
//   MountPointTrace trace = MountPointTrace::Record(merged, {"/proc", "/etc/hosts"});
//   ... runc run ...; unmount the overlay
//   TP_RETURN_IF_ERROR(trace.RemoveFrom(upper));
//
// Destinations are resolved inside the rootfs as runc resolves them:
// symlinks followed (an /etc/resolv.conf linking to
// ../run/systemd/resolve/stub-resolv.conf makes runc create that file),
// never above the root. Only empty directories and empty regular files
// are removed, and a directory that existed before only when the command
// left its mode and owner as they were and did not make it opaque.
#ifndef TRAINPKG_PACKAGER_RUN_MOUNT_POINT_TRACE_H_
#define TRAINPKG_PACKAGER_RUN_MOUNT_POINT_TRACE_H_

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "absl/status/status.h"

namespace trainpkg::packager::run {

class MountPointTrace {
 public:
  // Looks at `rootfs` for each absolute `destinations` path.
  static MountPointTrace Record(const std::filesystem::path& rootfs,
                                std::span<const std::string> destinations);

  // Removes from `upper` (REQUIRES: no longer mounted) what runc and
  // overlayfs made for the destinations, deepest first. Errors: the errno
  // of a removal, naming the path.
  absl::Status RemoveFrom(const std::filesystem::path& upper) const;

 private:
  // Relative path in the rootfs -> its lstat before the container, nullopt
  // when it did not exist.
  std::map<std::string, std::optional<struct stat>> paths_;
};

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_MOUNT_POINT_TRACE_H_
