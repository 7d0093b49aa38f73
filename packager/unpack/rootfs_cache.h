// Unpacked root filesystems of images, one per chain of layers (OCI's
// ChainID of the diff_ids: the rootfs's content, whatever manifest or config
// carries it), under a cache directory (the sdk uses $TRAINPKG_HOME/rootfs):
//
//   <dir>/<alg>-<hex>/        the image's rootfs, complete once it exists
//   <dir>/.tmp-<hex>-<pid>-…  an unpack in progress
//
//   <dir>/.locks/<alg>-<hex> held (flock) while that entry is being made
//
// An image is unpacked once into a temporary directory, then renamed into
// place, so a rootfs that exists is whole. Concurrent Get() calls for the
// same image, from threads or processes (two jobs starting on one new
// image), unpack it once: the first holds the entry's lock while it
// unpacks, the others wait for it and take its result. (Should a lock
// file be lost, each unpacks, the first rename wins and the others
// discard their copy.)
//
// Entries share unchanged files (docs/adr/2026-11-28-rootfs-entries-share-files.md):
// an image whose chain extends one already cached (a trainer FROM a base, a
// RUN's stage) starts from a hardlinked copy of that entry and unpacks only
// the layers above it. Pulled images get such a prefix too: the prefix up to
// the last layer of kBaseLayerBytes or more with layers above it is kept as
// an entry of its own (its files cost nothing extra; its directories are
// copied), so two versions of a trainer on one base store the base's bytes
// once. Directories are per entry; regular files and symlinks are shared.
//
// Callers must treat a returned rootfs as read-only (runc mounts it so): a
// write through one entry's file would change every entry sharing it.
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

#include <cstdint>
#include <filesystem>
#include <optional>
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
  // Layers of this compressed size or more are taken as the top of a base
  // (see the class comment).
  static constexpr uint64_t kBaseLayerBytes = 16 << 20;

  explicit RootfsCache(std::filesystem::path dir, UnpackOptions options = {},
                       uint64_t base_layer_bytes = kBaseLayerBytes)
      : dir_(std::move(dir)), options_(options), base_layer_bytes_(base_layer_bytes) {}

  // The rootfs of `image` (read from `layout`, its config present),
  // unpacking it first when absent. Errors: those of UnpackLayers (the
  // temporary copy is removed), FailedPrecondition when the image has no
  // config, errno-derived ones naming the cache path.
  absl::StatusOr<std::filesystem::path> Get(const oci::Layout& layout,
                                            const oci::LayoutImage& image) const;
  // The same, the layer blobs read through `open_blob`: with a pull's feed
  // (registry/blob_feed.h), each layer is unpacked as it downloads.
  absl::StatusOr<std::filesystem::path> Get(const oci::LayoutImage& image,
                                            const BlobOpener& open_blob) const;

  const std::filesystem::path& dir() const { return dir_; }

  // The directory name under dir() of the rootfs keyed `digest` (the
  // ChainID of its diff_ids, or the manifest digest of an image without a
  // config): "<alg>-<hex>".
  static std::string EntryName(const oci::Digest& digest);

 private:
  static oci::Digest PrefixChainId(const std::vector<oci::Digest>& diff_ids, size_t count);
  // Unpacks layers [from, to) of `image` over a hardlinked copy of `below`
  // (or into an empty directory) and publishes the result as entry `key`.
  absl::StatusOr<std::filesystem::path> Unpack(const BlobOpener& open_blob,
                                               const oci::LayoutImage& image,
                                               const std::optional<std::filesystem::path>& below,
                                               size_t from, size_t to,
                                               const oci::Digest& key) const;

  std::filesystem::path dir_;
  UnpackOptions options_;
  uint64_t base_layer_bytes_;
};

}  // namespace trainpkg::packager::unpack

#endif  // TRAINPKG_PACKAGER_UNPACK_ROOTFS_CACHE_H_
