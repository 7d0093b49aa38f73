#include "packager/unpack/rootfs_cache.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <random>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::unpack {

absl::StatusOr<std::filesystem::path> RootfsCache::Get(const oci::Layout& layout,
                                                       const oci::LayoutImage& image) const {
  // Keyed by the config digest, the image's content (its layers' diff_ids):
  // the same image under another manifest (pushed to another registry, so
  // another base.name annotation, or recompressed) shares one rootfs.
  const oci::Digest& digest = image.manifest.config.digest;
  const std::filesystem::path final_dir =
      dir_ / fmt::format("{}-{}", std::string(digest.algorithm_name()), digest.hex());
  std::error_code ec;
  if (std::filesystem::is_directory(final_dir, ec)) return final_dir;
  if (!image.config.has_value()) {
    return absl::FailedPreconditionError(
        fmt::format("image {} has no image config to unpack by", digest.ToString()));
  }
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return absl::PermissionDeniedError(fmt::format("creating {}: {}", dir_.string(), ec.message()));
  }
  std::random_device random;
  const std::filesystem::path temp =
      dir_ / fmt::format(".tmp-{}-{}-{:08x}", digest.hex().substr(0, 12), ::getpid(), random());
  std::filesystem::create_directory(temp, ec);
  if (ec) {
    return absl::InternalError(fmt::format("creating {}: {}", temp.string(), ec.message()));
  }
  // The rootfs directory is the container's "/".
  std::filesystem::permissions(temp, std::filesystem::perms(0755), ec);
  UnpackOptions options = options_;
  options.clear_set_id_bits = true;  // see the header
  absl::Status unpacked =
      UnpackLayers(layout, image.manifest.layers, image.config->rootfs.diff_ids, temp, options);
  if (!unpacked.ok()) {
    std::filesystem::remove_all(temp, ec);
    return unpacked;
  }
  if (::rename(temp.c_str(), final_dir.c_str()) != 0) {
    int err = errno;
    std::filesystem::remove_all(temp, ec);
    // Another unpack of the same image won the race.
    if ((err == EEXIST || err == ENOTEMPTY) && std::filesystem::is_directory(final_dir, ec)) {
      return final_dir;
    }
    return base::ErrnoToStatus(err, fmt::format("renaming {} into place", temp.string()));
  }
  return final_dir;
}

}  // namespace trainpkg::packager::unpack
