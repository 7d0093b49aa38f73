// The layer a command's changes make, read from an overlayfs upper
// directory (overlay_mount.h) after the overlay is unmounted:
//   - files, directories and symlinks in `upper` are the added or changed
//     paths, with their permission bits and owners as the command left them
//     (directories that only hold changes included, as Docker's diff does);
//   - a 0/0 character device is a deletion: it is removed from `upper` and
//     becomes a whiteout `.wh.NAME`;
//   - a directory with the xattr trusted.overlay.opaque=y replaced the lower
//     one: an opaque marker `DIR/.wh..wh..opq` beside its new children.
// Other devices, FIFOs and sockets are InvalidArgument naming the path
// (a layer holds files, directories and links only).
#ifndef TRAINPKG_PACKAGER_RUN_OVERLAY_DIFF_H_
#define TRAINPKG_PACKAGER_RUN_OVERLAY_DIFF_H_

#include <filesystem>

#include "absl/status/statusor.h"
#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::run {

// REQUIRES: `upper` is not mounted as an overlay upper layer any more.
absl::StatusOr<LayerSource> OverlayDiff(const std::filesystem::path& upper);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_OVERLAY_DIFF_H_
