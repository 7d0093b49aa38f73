#include "packager/unpack/rootfs_cache.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <optional>
#include <random>
#include <span>
#include <vector>

#include "base/file_lock.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "packager/unpack/internal/tree_clone.h"
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

namespace {

// Under dir(): the entries' lock files (a dot name, like the temporary
// directories, so nothing takes it for an entry).
constexpr std::string_view kLocks = ".locks";

// A fresh temporary directory beside the cache's entries: unpacked there and
// renamed into place, a reader never sees a half-unpacked rootfs, and two
// processes unpacking the same image race only on the rename.
absl::StatusOr<std::filesystem::path> MakeTemp(const std::filesystem::path& dir,
                                               const oci::Digest& digest) {
  std::random_device random;
  const std::filesystem::path temp =
      dir / fmt::format(".tmp-{}-{}-{:08x}", digest.hex().substr(0, 12), ::getpid(), random());
  std::error_code ec;
  std::filesystem::create_directory(temp, ec);
  if (ec) {
    return absl::InternalError(fmt::format("creating {}: {}", temp.string(), ec.message()));
  }
  // The rootfs directory is the container's "/".
  std::filesystem::permissions(temp, std::filesystem::perms(0755), ec);
  return temp;
}

// Renames the complete rootfs `temp` to `final_dir`; when another unpack of
// the same chain won the race, its copy is kept and ours discarded.
absl::StatusOr<std::filesystem::path> Publish(const std::filesystem::path& temp,
                                              const std::filesystem::path& final_dir) {
  std::error_code ec;
  if (::rename(temp.c_str(), final_dir.c_str()) != 0) {
    int err = errno;
    std::filesystem::remove_all(temp, ec);
    if ((err == EEXIST || err == ENOTEMPTY) && std::filesystem::is_directory(final_dir, ec)) {
      return final_dir;
    }
    return base::ErrnoToStatus(err, fmt::format("renaming {} into place", temp.string()));
  }
  return final_dir;
}

}  // namespace

absl::StatusOr<std::filesystem::path> RootfsCache::Get(const oci::Layout& layout,
                                                       const oci::LayoutImage& image) const {
  return Get(image, LayoutBlobs(layout));
}

absl::StatusOr<std::filesystem::path> RootfsCache::Get(const oci::LayoutImage& image,
                                                       const BlobOpener& open_blob) const {
  // Keyed by what the rootfs is made of, the layers' diff_ids (their OCI
  // ChainID): the same layers under another manifest or config (pushed to
  // another registry, so another base.name annotation; recompressed; a
  // builder's stage base, which has no config blob) share one rootfs.
  // Without the config, the manifest digest names what was unpacked before.
  const oci::Digest digest =
      image.config.has_value() ? ChainId(image.config->rootfs.diff_ids) : image.descriptor.digest;
  const std::filesystem::path final_dir = dir_ / EntryName(digest);
  std::error_code ec;
  if (std::filesystem::is_directory(final_dir, ec)) return final_dir;
  if (!image.config.has_value()) {
    return absl::FailedPreconditionError(
        fmt::format("image {} has no image config to unpack by", digest.ToString()));
  }
  const std::vector<oci::Digest>& diff_ids = image.config->rootfs.diff_ids;
  if (image.manifest.layers.size() != diff_ids.size()) {
    return absl::InvalidArgumentError(
        fmt::format("{} layers but {} diff_ids; the image config must list one per layer",
                    image.manifest.layers.size(), diff_ids.size()));
  }
  std::filesystem::create_directories(dir_ / kLocks, ec);
  if (ec) {
    return absl::PermissionDeniedError(fmt::format("creating {}: {}", dir_.string(), ec.message()));
  }
  // One unpack per entry: a second job starting on the same new image waits
  // here, then finds the entry the first one made.
  TP_ASSIGN_OR_RETURN(base::FileLock lock,
                      base::FileLock::Acquire(dir_ / kLocks / EntryName(digest),
                                              base::FileLock::Mode::kExclusive));
  if (std::filesystem::is_directory(final_dir, ec)) return final_dir;
  const size_t layers = diff_ids.size();
  // The longest prefix of the chain already in the cache (a base image, or
  // the stage a RUN unpacked): only the layers above it are unpacked.
  size_t done = 0;
  std::optional<std::filesystem::path> below;
  for (size_t k = layers; k-- > 1;) {
    std::filesystem::path prefix = dir_ / EntryName(PrefixChainId(diff_ids, k));
    if (std::filesystem::is_directory(prefix, ec)) {
      done = k;
      below = std::move(prefix);
      break;
    }
  }
  // The base/application split: the last layer of base_layer_bytes or more
  // that has layers above it. Its prefix is kept as an entry of its own, so
  // the next image on the same base (another version of a trainer, pulled
  // rather than built) starts from it.
  size_t keep = 0;
  for (size_t top = layers > 0 ? layers - 1 : 0; top > done; --top) {
    if (image.manifest.layers[top - 1].size >= static_cast<int64_t>(base_layer_bytes_)) {
      keep = top;
      break;
    }
  }
  if (keep > done) {
    TP_ASSIGN_OR_RETURN(std::filesystem::path prefix,
                        Unpack(open_blob, image, below, done, keep, PrefixChainId(diff_ids, keep)));
    below = std::move(prefix);
    done = keep;
  }
  return Unpack(open_blob, image, below, done, layers, digest);
}

oci::Digest RootfsCache::PrefixChainId(const std::vector<oci::Digest>& diff_ids, size_t count) {
  return ChainId(std::vector<oci::Digest>(diff_ids.begin(), diff_ids.begin() + count));
}

absl::StatusOr<std::filesystem::path> RootfsCache::Unpack(
    const BlobOpener& open_blob, const oci::LayoutImage& image,
    const std::optional<std::filesystem::path>& below, size_t from, size_t to,
    const oci::Digest& key) const {
  const std::filesystem::path final_dir = dir_ / EntryName(key);
  std::error_code ec;
  TP_ASSIGN_OR_RETURN(std::filesystem::path temp, MakeTemp(dir_, key));
  if (below.has_value()) {
    // Hardlinks to the cached prefix's files: the layers above replace an
    // entry by removing it first (never writing through the link), and every
    // entry is read-only to callers, so sharing inodes is safe and costs only
    // the directories. Where linking fails (another filesystem, a file at its
    // link limit), the whole chain is unpacked instead.
    if (!internal::HardlinkTree(*below, temp).ok()) {
      std::filesystem::remove_all(temp, ec);
      TP_ASSIGN_OR_RETURN(temp, MakeTemp(dir_, key));
      from = 0;
    }
  }
  UnpackOptions options = options_;
  options.clear_set_id_bits = true;  // see the header
  const std::span<const oci::Descriptor> layers(image.manifest.layers);
  const std::span<const oci::Digest> diff_ids(image.config->rootfs.diff_ids);
  absl::Status unpacked = UnpackLayers(open_blob, layers.subspan(from, to - from),
                                       diff_ids.subspan(from, to - from), temp, options);
  if (!unpacked.ok()) {
    std::filesystem::remove_all(temp, ec);
    return unpacked;
  }
  return Publish(temp, final_dir);
}

}  // namespace trainpkg::packager::unpack
