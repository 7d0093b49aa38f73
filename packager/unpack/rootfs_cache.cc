#include "packager/unpack/rootfs_cache.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <random>
#include <vector>

#include "base/file_util.h"
#include "registry/oci/digest_builder.h"
#include "fmt/format.h"

namespace trainpkg::packager::unpack {
// The image spec's ChainID (config.md), so the key is the one other tools
// compute for the same stack of layers.
oci::Digest ChainId(const std::vector<oci::Digest>& diff_ids) {
  if (diff_ids.empty()) return oci::Sha256Digest("");
  oci::Digest chain = diff_ids[0];
  for (size_t i = 1; i < diff_ids.size(); ++i) {
    chain = oci::Sha256Digest(chain.ToString() + " " + diff_ids[i].ToString());
  }
  return chain;
}

std::string RootfsCache::EntryName(const oci::Digest& digest) {
  return fmt::format("{}-{}", std::string(digest.algorithm_name()), digest.hex());
}

absl::StatusOr<std::filesystem::path> RootfsCache::Get(const oci::Layout& layout,
                                                       const oci::LayoutImage& image) const {
  // Keyed by what the rootfs is made of, the layers' diff_ids (their OCI
  // ChainID): the same layers under another manifest or config (pushed to
  // another registry, so another base.name annotation; recompressed; a
  // builder's stage base, which has no config blob) share one rootfs.
  // Without the config, the manifest digest names what was unpacked before.
  const oci::Digest digest =
      image.config.has_value() ? ChainId(image.config->rootfs.diff_ids) : image.descriptor.digest;
  const std::filesystem::path final_dir =
      dir_ / EntryName(digest);
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
      // Unpacked beside the final name and renamed into place: a reader never
      // sees a half-unpacked rootfs, and two processes unpacking the same image
      // race only on the rename.
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
