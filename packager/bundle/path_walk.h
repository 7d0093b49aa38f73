// Resolving an absolute path the way the kernel does, one component at a
// time, inside a root directory (the host "/" or a sysroot), keeping every
// symlink met on the way: the bundle reproduces them in the image, so
// "/lib64/ld-linux-x86-64.so.2" and "libfoo.so.1 -> libfoo.so.1.2.3" work
// there as they do on the host.
//
//   TP_ASSIGN_OR_RETURN(PathWalk walk, WalkPath("/", "/lib/x86_64-linux-gnu/libc.so.6"));
//   walk.links   // {"/lib", "usr/lib"} on a merged-/usr system
//   walk.target  // "/usr/lib/x86_64-linux-gnu/libc.so.6"
//
// Paths are in the root's namespace ("/usr/lib", never "ROOT/usr/lib");
// absolute link targets are read relative to the root, and ".." never climbs
// above it. Errors: NotFound when a component is missing, InvalidArgument
// for a relative path or more than 40 links (ELOOP), the errno code
// otherwise. Thread-safe.
#ifndef TRAINPKG_PACKAGER_BUNDLE_PATH_WALK_H_
#define TRAINPKG_PACKAGER_BUNDLE_PATH_WALK_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::packager::bundle {

struct SymlinkHop {
  std::string path;    // where the link is; its parent directory has no links
  std::string target;  // the link text, verbatim
  friend bool operator==(const SymlinkHop&, const SymlinkHop&) = default;
};

struct PathWalk {
  std::vector<SymlinkHop> links;  // in the order they were followed
  std::string target;             // the path with no links left (canonical)
};

absl::StatusOr<PathWalk> WalkPath(const std::filesystem::path& root, const std::string& path);

// `path` (in the root's namespace) as a host path: ROOT/path.
std::filesystem::path HostPath(const std::filesystem::path& root, const std::string& path);

}  // namespace trainpkg::packager::bundle

#endif  // TRAINPKG_PACKAGER_BUNDLE_PATH_WALK_H_
