#include "packager/run/overlay_mount.h"

#include <errno.h>
#include <sys/mount.h>

#include <string>

#include "base/file_util.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {

absl::StatusOr<OverlayMount> OverlayMount::Mount(const std::vector<std::filesystem::path>& lowers,
                                                 const std::filesystem::path& upper,
                                                 const std::filesystem::path& work,
                                                 const std::filesystem::path& target) {
  if (lowers.empty()) return absl::InvalidArgumentError("an overlay needs a lower directory");
  for (const std::filesystem::path& dir : {upper, work, target}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", dir.string()));
  }
  std::string lowerdir;
  for (const std::filesystem::path& lower : lowers) {
    if (!lowerdir.empty()) lowerdir += ':';
    lowerdir += lower.string();
  }
  // The upper directory becomes the RUN's layer (OverlayDiff), which must
  // hold whole files: redirect_dir would record a renamed directory as an
  // xattr pointing into the lower layers, and metacopy a chmod'ed file as
  // metadata with no data, and neither survives being archived.
  const std::string options =
      fmt::format("lowerdir={},upperdir={},workdir={},redirect_dir=off,metacopy=off", lowerdir,
                  upper.string(), work.string());
  // Recorded before mounting: if this process dies before unmounting, the
  // ledger tells the next run what to clean up.
  TP_ASSIGN_OR_RETURN(LedgerEntry entry, RecordHostResource({.kind = HostResourceKind::kMount,
                                                             .name = target.string(),
                                                             .runtime = ""}));
  if (::mount("overlay", target.c_str(), "overlay", 0, options.c_str()) != 0) {
    return base::ErrnoToStatus(
        errno, fmt::format("mounting an overlay at {} ({}); RUN needs root and an overlayfs "
                           "upper directory on a local file system",
                           target.string(), options));
  }
  return OverlayMount(target, std::move(entry));
}

absl::Status OverlayMount::Unmount() {
  if (target_.empty()) return absl::OkStatus();
  std::filesystem::path target = std::move(target_);
  target_.clear();
  if (::umount2(target.c_str(), 0) == 0) {
    entry_.Release();
    return absl::OkStatus();
  }
  const int err = errno;
  // A busy mount (a process still inside) is detached instead: gone from the
  // tree now, freed by the kernel when the last user leaves.
  if (::umount2(target.c_str(), MNT_DETACH) == 0) entry_.Release();
  return base::ErrnoToStatus(err, fmt::format("unmounting {}", target.string()));
}

OverlayMount::~OverlayMount() {
  absl::Status status = Unmount();
  if (!status.ok()) TP_LOG(WARNING, "{}", std::string(status.message()));
}

}  // namespace trainpkg::packager::run
