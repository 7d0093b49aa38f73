// An overlayfs mount that lives as long as the object: `lowers` (topmost
// first, read-only) under a writable `upper`, merged at `target`. Writes go
// to `upper` in overlayfs's own format: a deleted path becomes a 0/0
// character device, a replaced directory gets trusted.overlay.opaque=y
// (overlay_diff.h turns that into layer entries).
//
//   TP_ASSIGN_OR_RETURN(OverlayMount merged,
//                       OverlayMount::Mount({rootfs}, work / "upper", work / "work",
//                                           work / "merged"));
//
// Mounted with redirect_dir=off and metacopy=off, so every changed file is
// copied up whole. Needs CAP_SYS_ADMIN (root) and an `upper` on a file
// system that overlayfs accepts as an upper layer (ext4, xfs, tmpfs; not
// overlayfs itself). The mount is recorded in this process's
// HostResourceLedger, so it does not outlive the process. Move-only.
#ifndef TRAINPKG_PACKAGER_RUN_OVERLAY_MOUNT_H_
#define TRAINPKG_PACKAGER_RUN_OVERLAY_MOUNT_H_

#include <filesystem>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/run/host_resource_ledger.h"

namespace trainpkg::packager::run {

class OverlayMount {
 public:
  // Creates `upper`, `work` and `target` (parents too) and mounts. Errors:
  // InvalidArgument without lowers; the errno of mount(2) with the options
  // and a hint (root, file system) otherwise.
  static absl::StatusOr<OverlayMount> Mount(const std::vector<std::filesystem::path>& lowers,
                                            const std::filesystem::path& upper,
                                            const std::filesystem::path& work,
                                            const std::filesystem::path& target);

  OverlayMount(OverlayMount&& other) noexcept
      : target_(std::move(other.target_)), entry_(std::move(other.entry_)) {
    other.target_.clear();
  }
  OverlayMount& operator=(OverlayMount&&) = delete;
  OverlayMount(const OverlayMount&) = delete;
  OverlayMount& operator=(const OverlayMount&) = delete;
  ~OverlayMount();

  // Unmounts now (lazily if busy); the destructor then does nothing.
  absl::Status Unmount();

  const std::filesystem::path& target() const { return target_; }

 private:
  OverlayMount(std::filesystem::path target, LedgerEntry entry)
      : target_(std::move(target)), entry_(std::move(entry)) {}
  std::filesystem::path target_;  // empty once unmounted
  LedgerEntry entry_;
};

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_OVERLAY_MOUNT_H_
