#include "sdk/local_images.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "packager/builder/image_store.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/store_gc.h"
#include "packager/builder/store_lock.h"
#include "packager/unpack/rootfs_cache.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "sdk/image_builder.h"

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
namespace pb = packager::builder;

// Files (not following links) under `path` and their bytes.
std::pair<int64_t, int64_t> DiskUsage(const fs::path& path) {
  int64_t files = 0, bytes = 0;
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(path, ec))) {
    return {1, static_cast<int64_t>(fs::file_size(path, ec))};
  }
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_symlink(size_ec) || !it->is_regular_file(size_ec)) continue;
    ++files;
    bytes += static_cast<int64_t>(it->file_size(size_ec));
  }
  return {files, bytes};
}

// The bytes deleting the tree at `path` frees: regular files whose every
// link is inside it. Rootfs cache entries share files by hardlinks
// (packager/unpack/rootfs_cache.h), so a file another entry still links is
// not freed; entries removed one after another each count what they free.
int64_t FreedBytes(const fs::path& path) {
  struct Inode {
    nlink_t links = 0;
    nlink_t seen = 0;
    int64_t size = 0;
  };
  std::map<std::pair<dev_t, ino_t>, Inode> inodes;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    Inode& inode = inodes[{st.st_dev, st.st_ino}];
    inode.links = st.st_nlink;
    inode.size = st.st_size;
    ++inode.seen;
  }
  int64_t bytes = 0;
  for (const auto& [id, inode] : inodes) {
    if (inode.seen >= inode.links) bytes += inode.size;
  }
  return bytes;
}

// The blobs the build cache's layer keys reference (fresh layers and their
// compressed forms): kept by rm and images prune, like docker's build cache.
std::set<oci::Digest> CacheRoots(const fs::path& home) {
  std::set<oci::Digest> roots = pb::LayerCache::ReferencedBlobs(home / "build-cache" / "layers");
  roots.merge(pb::LayerCache::ReferencedBlobs(home / "build-cache" / "compressed"));
  return roots;
}

// Rootfs entries any image of the store may use: the ChainID of every prefix
// of its diff_ids (a RUN's base is a prefix) and its manifest digest.
absl::StatusOr<std::set<std::string>> RootfsInUse(const oci::Layout& layout) {
  std::set<std::string> names;
  TP_ASSIGN_OR_RETURN(std::vector<oci::LayoutTag> tags, layout.ListTags());
  for (const oci::LayoutTag& tag : tags) {
    names.insert(packager::unpack::RootfsCache::EntryName(tag.descriptor.digest));
    auto image = layout.ReadImage(tag.tag);
    if (!image.ok() || !image->config) continue;
    std::vector<oci::Digest> prefix;
    for (const oci::Digest& diff_id : image->config->rootfs.diff_ids) {
      prefix.push_back(diff_id);
      names.insert(packager::unpack::RootfsCache::EntryName(packager::unpack::ChainId(prefix)));
    }
  }
  return names;
}

struct Store {
  fs::path home;
  pb::ImageStore store;
};

absl::StatusOr<Store> OpenStore(const base::Environment& environment) {
  TP_ASSIGN_OR_RETURN(fs::path dir, ImageStoreDir(environment));
  TP_ASSIGN_OR_RETURN(pb::ImageStore store, pb::ImageStore::Open(dir));
  return Store{dir.parent_path(), std::move(store)};
}

}  // namespace

std::string HumanSize(int64_t bytes) {
  // Decimal units (1 kB = 1000 B), as `docker images` prints sizes.
  if (bytes < 1000) return fmt::format("{}B", bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.1f}kB", bytes / 1e3);
  if (bytes < 1000LL * 1000 * 1000) return fmt::format("{:.1f}MB", bytes / 1e6);
  return fmt::format("{:.2f}GB", bytes / 1e9);
}

absl::StatusOr<std::vector<pb::StoredImage>> ListDanglingImages(
    const base::Environment& environment) {
  TP_ASSIGN_OR_RETURN(Store opened, OpenStore(environment));
  const oci::Layout& layout = opened.store.layout();
  TP_ASSIGN_OR_RETURN(std::vector<oci::Digest> manifests, pb::DanglingManifests(layout));
  std::vector<pb::StoredImage> out;
  for (const oci::Digest& digest : manifests) {
    TP_ASSIGN_OR_RETURN(std::string bytes, layout.ReadBlob(digest));
    TP_ASSIGN_OR_RETURN(oci::ImageManifest manifest, oci::ParseImageManifest(bytes));
    pb::StoredImage image;
    image.repository = "<none>";
    image.tag = "<none>";
    image.manifest_digest = digest;
    image.config_digest = manifest.config.digest;
    if (layout.HasBlob(manifest.config.digest)) {
      image.size = manifest.config.size;
      auto config_bytes = layout.ReadBlob(manifest.config);
      auto config = config_bytes.ok() ? oci::ParseImageConfig(*config_bytes)
                                      : absl::StatusOr<oci::ImageConfig>(config_bytes.status());
      if (config.ok()) image.created = config->created;
    }
    for (const oci::Descriptor& layer : manifest.layers) {
      if (layout.HasBlob(layer.digest)) image.size += layer.size;
    }
    out.push_back(std::move(image));
  }
  return out;
}

absl::StatusOr<RemovedImage> RemoveImage(const base::Environment& environment,
                                         std::string_view what, bool force) {
  TP_ASSIGN_OR_RETURN(Store opened, OpenStore(environment));
  const oci::Layout& layout = opened.store.layout();
  // Exclusive: waits until running builds and pulls, which hold it shared,
  // have tagged what they wrote.
  TP_ASSIGN_OR_RETURN(pb::StoreLock lock,
                      pb::StoreLock::ForCollection(layout.root(), pb::StoreLock::Mode::kExclusive));
  TP_ASSIGN_OR_RETURN(std::vector<pb::StoredImage> images, opened.store.Find(what));
  if (images.size() > 1 && !force) {
    std::string names;
    for (const pb::StoredImage& image : images) names += (names.empty() ? "" : ", ") + image.name;
    return absl::FailedPreconditionError(fmt::format(
        "unable to delete {} (must be forced): image {} is tagged {}; remove the tags one by one "
        "or use -f",
        what, images.front().config_digest.hex().substr(0, 12), names));
  }
  RemovedImage removed;
  std::set<oci::Digest> candidates;
  for (const pb::StoredImage& image : images) {
    oci::Descriptor manifest;
    TP_ASSIGN_OR_RETURN(manifest, layout.Resolve(image.name));
    TP_ASSIGN_OR_RETURN(std::set<oci::Digest> reached, pb::ReachableBlobs(layout, manifest));
    candidates.merge(reached);
    TP_RETURN_IF_ERROR(opened.store.Untag(image.name));
    removed.untagged.push_back(image.name);
  }
  // Only what the removed images reached is a candidate: rm never deletes
  // the blobs of another untagged image (prune does).
  TP_ASSIGN_OR_RETURN(pb::CollectedBlobs collected,
                      pb::CollectBlobs(layout, CacheRoots(opened.home), &candidates));
  for (const oci::Digest& digest : collected.manifests)
    removed.deleted.push_back(digest.ToString());
  for (const pb::StoredImage& image : images) {
    // Reported as `docker rmi` does: "Deleted: <image id>", the config digest.
    if (!layout.HasBlob(image.config_digest) &&
        std::find(removed.deleted.begin(), removed.deleted.end(), image.config_digest.ToString()) ==
            removed.deleted.end()) {
      removed.deleted.push_back(image.config_digest.ToString());
    }
  }
  removed.bytes = collected.bytes;
  return removed;
}

absl::StatusOr<std::string> TagImage(const base::Environment& environment, std::string_view source,
                                     std::string_view target) {
  TP_ASSIGN_OR_RETURN(Store opened, OpenStore(environment));
  TP_ASSIGN_OR_RETURN(std::vector<pb::StoredImage> images, opened.store.Find(source));
  TP_ASSIGN_OR_RETURN(oci::Descriptor manifest, opened.store.layout().Resolve(images[0].name));
  absl::StatusOr<std::string> tagged = opened.store.Tag(manifest, target);
  if (!tagged.ok()) {
    return base::WithContext(tagged.status(), fmt::format("target {}", target));
  }
  return tagged;
}

absl::StatusOr<std::string> InspectImage(const base::Environment& environment,
                                         std::string_view what) {
  TP_ASSIGN_OR_RETURN(Store opened, OpenStore(environment));
  const oci::Layout& layout = opened.store.layout();
  TP_ASSIGN_OR_RETURN(std::vector<pb::StoredImage> images, opened.store.Find(what));
  TP_ASSIGN_OR_RETURN(std::vector<pb::StoredImage> all, opened.store.List());
  const pb::StoredImage& image = images.front();
  TP_ASSIGN_OR_RETURN(oci::Descriptor descriptor, layout.Resolve(image.name));
  TP_ASSIGN_OR_RETURN(std::string manifest, layout.ReadBlob(descriptor));
  TP_ASSIGN_OR_RETURN(std::string config, layout.ReadBlob(image.config_digest));
  nlohmann::json out;
  out["Id"] = image.config_digest.ToString();
  nlohmann::json tags = nlohmann::json::array();
  for (const pb::StoredImage& other : all) {
    if (other.config_digest == image.config_digest) tags.push_back(other.name);
  }
  out["RepoTags"] = tags;
  out["Digest"] = descriptor.digest.ToString();
  out["Created"] = image.created;
  out["Size"] = image.size;
  nlohmann::json config_json = nlohmann::json::parse(config, nullptr, false);
  if (config_json.is_object()) {
    out["Architecture"] = config_json.value("architecture", "");
    out["Os"] = config_json.value("os", "");
  }
  out["Manifest"] = nlohmann::json::parse(manifest, nullptr, false);
  out["Config"] = config_json;
  return out.dump(4);
}

absl::StatusOr<PruneReport> PruneImages(const base::Environment& environment,
                                        const PruneOptions& options) {
  TP_ASSIGN_OR_RETURN(Store opened, OpenStore(environment));
  const oci::Layout& layout = opened.store.layout();
  TP_ASSIGN_OR_RETURN(pb::StoreLock lock,
                      pb::StoreLock::ForCollection(layout.root(), pb::StoreLock::Mode::kExclusive));
  PruneReport report;
  if (options.all) {
    TP_ASSIGN_OR_RETURN(std::vector<pb::StoredImage> images, opened.store.List());
    for (const pb::StoredImage& image : images) {
      TP_RETURN_IF_ERROR(opened.store.Untag(image.name));
      report.untagged.push_back(image.name);
    }
  }
  if (options.system) {
    const fs::path cache = opened.home / "build-cache";
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(cache, ec)) {
      auto [files, bytes] = DiskUsage(entry.path());
      fs::remove_all(entry.path(), ec);
      if (ec) return base::ErrnoToStatus(ec.value(), "deleting " + entry.path().string());
      report.build_cache_entries += files;
      report.bytes += bytes;
    }
  }
  TP_ASSIGN_OR_RETURN(pb::CollectedBlobs collected,
                      pb::CollectBlobs(layout, CacheRoots(opened.home)));
  for (const oci::Digest& digest : collected.manifests) report.deleted.push_back(digest.ToString());
  report.blobs = collected.blobs;
  report.bytes += collected.bytes;
  if (options.system) {
    TP_ASSIGN_OR_RETURN(std::set<std::string> in_use, RootfsInUse(layout));
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(opened.home / "rootfs", ec)) {
      const std::string name = entry.path().filename().string();
      // ".tmp-..." is an unpack in progress (a job's, which holds no store lock).
      if (name.starts_with(".") || in_use.contains(name)) continue;
      const int64_t bytes = FreedBytes(entry.path());
      std::error_code rm_ec;
      fs::remove_all(entry.path(), rm_ec);
      if (rm_ec) return base::ErrnoToStatus(rm_ec.value(), "deleting " + entry.path().string());
      // Its lock file (RootfsCache's .locks/) goes with it.
      fs::remove(opened.home / "rootfs" / ".locks" / name, rm_ec);
      report.rootfs.push_back(name);
      report.bytes += bytes;
    }
  }
  return report;
}

}  // namespace trainpkg::sdk
