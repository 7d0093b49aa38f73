// The image config's User ("user", "uid", "user:group", "uid:gid",
// "uid:group", "user:gid") as numeric ids, names looked up in the rootfs's
// /etc/passwd and /etc/group (never the host's). "" is root. A user given
// without a group takes its passwd entry's primary group (0 when the uid has
// none); its supplementary groups are those of /etc/group that list it.
// The files are opened inside the rootfs the way the container would see
// them (symlinks, absolute ones too, resolve inside the root; openat2
// RESOLVE_IN_ROOT), never through the host's paths.
#ifndef TRAINPKG_PACKAGER_RUN_CONTAINER_USER_H_
#define TRAINPKG_PACKAGER_RUN_CONTAINER_USER_H_

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::packager::run {

struct ContainerUser {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> additional_gids;
};

// /etc/passwd and /etc/group larger than this are refused.
inline constexpr int64_t kMaxContainerUserFileBytes = 4 << 20;

// NotFound naming the user or group (and the file) when a name is not in
// the rootfs; InvalidArgument for a malformed spec, or for an /etc/passwd or
// /etc/group that is not a regular file (a device, a FIFO) or is over
// kMaxContainerUserFileBytes.
absl::StatusOr<ContainerUser> ResolveContainerUser(const std::filesystem::path& rootfs,
                                                   std::string_view user);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_CONTAINER_USER_H_
