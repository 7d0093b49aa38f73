// Unpacked root filesystems of images, one per chain of layers (OCI's
// ChainID of the diff_ids: the rootfs's content, whatever manifest or config
// carries it), under a cache directory (the sdk uses $TRAINPKG_HOME/rootfs):
//
//   <dir>/<alg>-<hex>/        the image's rootfs, complete once it exists
//   <dir>/.tmp-<hex>-<pid>-…  an unpack in progress
//
// An image is unpacked once into a temporary directory, then renamed into
// place, so a rootfs that exists is whole. Concurrent Get() calls for the
// same image, from threads or processes, are safe: each may unpack, the
// first rename wins and the others discard their copy.
//
// Callers must treat a returned rootfs as read-only (runc mounts it so).
//
// Regular files lose their setuid and setgid bits here, whatever
// UnpackOptions says: every container trainpkg starts runs with
// noNewPrivileges, so inside one they could never take effect, while in the
// cache any local user able to reach the file could run a setuid-root
// binary the image planted. Stripping them (rather than a 0700 cache) keeps
// the cache traversable for runtimes that remap users and makes the files
// inert wherever they are copied. Layer caps: UnpackOptions::limits.
// Thread-safe.
#ifndef TRAINPKG_PACKAGER_UNPACK_ROOTFS_CACHE_H_
#define TRAINPKG_PACKAGER_UNPACK_ROOTFS_CACHE_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/unpack/layer_unpacker.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::unpack {

// OCI's ChainID: ChainID(L0) = DiffID(L0), ChainID(L0|..|Ln) =
// sha256(ChainID(L0|..|Ln-1) + " " + DiffID(Ln)); of no layers, sha256("").
oci::Digest ChainId(const std::vector<oci::Digest>& diff_ids);

class RootfsCache {
 public:
  explicit RootfsCache(std::filesystem::path dir, UnpackOptions options = {})
      : dir_(std::move(dir)), options_(options) {}

  // The rootfs of `image` (read from `layout`, its config present),
  // unpacking it first when absent. Errors: those of UnpackLayers (the
  // temporary copy is removed), FailedPrecondition when the image has no
  // config, errno-derived ones naming the cache path.
  absl::StatusOr<std::filesystem::path> Get(const oci::Layout& layout,
                                            const oci::LayoutImage& image) const;

  const std::filesystem::path& dir() const { return dir_; }

  // The directory name under dir() of the rootfs keyed `digest` (the
  // ChainID of its diff_ids, or the manifest digest of an image without a
  // config): "<alg>-<hex>".
  static std::string EntryName(const oci::Digest& digest);

 private:
  std::filesystem::path dir_;
  UnpackOptions options_;
};

}  // namespace trainpkg::packager::unpack

#endif  // TRAINPKG_PACKAGER_UNPACK_ROOTFS_CACHE_H_
