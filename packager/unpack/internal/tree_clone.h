// Copies a directory tree by hardlinking its files: the copy's directories
// are new (same mode, owner and mtime), every other entry (regular file,
// symlink) is a second link to the source's inode, so the copy costs
// directory blocks and inodes for directories only, not file data.
//
//   TP_RETURN_IF_ERROR(HardlinkTree(base_rootfs, fresh_empty_dir));
//
// Only for trees nobody writes in place: a write through either name
// changes both. RootfsCache's entries qualify (read-only to callers; the
// unpacker removes an entry before writing its replacement, O_EXCL).
// Links are never followed (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW). Errors are
// errno-derived and name the entry; on error `to` is partly written (the
// caller discards it). EXDEV (another filesystem) and EMLINK (an inode's
// link count at its maximum) are among them: callers fall back to copying.
#ifndef TRAINPKG_PACKAGER_UNPACK_INTERNAL_TREE_CLONE_H_
#define TRAINPKG_PACKAGER_UNPACK_INTERNAL_TREE_CLONE_H_

#include <filesystem>

#include "absl/status/status.h"

namespace trainpkg::packager::unpack::internal {

// Fills the existing, empty directory `to` with a hardlinked copy of the
// tree under `from`, and gives `to` the mode, owner and mtime of `from`.
// Ownership is copied only where it differs from the caller's (it needs
// CAP_CHOWN then).
absl::Status HardlinkTree(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace trainpkg::packager::unpack::internal

#endif  // TRAINPKG_PACKAGER_UNPACK_INTERNAL_TREE_CLONE_H_
