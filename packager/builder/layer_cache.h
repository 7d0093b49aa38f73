// Layers already built, by layer key (layer_key.h): key files under `dir`
// (<dir>/<key>.json: the layer descriptor and diff_id), blobs in a layout
// (the local image store's). A hit needs both the key file and the blob, so
// deleting blobs never yields a layer that cannot be read. Entries are never
// evicted; `trainpkg system prune` deletes the directory and then the blobs
// nothing else references (store_gc.h).
//
// Safe to use from several processes (key files are written atomically);
// not thread-safe within one.
#ifndef TRAINPKG_PACKAGER_BUILDER_LAYER_CACHE_H_
#define TRAINPKG_PACKAGER_BUILDER_LAYER_CACHE_H_

#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

struct CachedLayer {
  oci::Descriptor descriptor;  // media type, digest, size of the blob
  oci::Digest diff_id;
};

class LayerCache {
 public:
  LayerCache(std::filesystem::path dir, oci::Layout blobs)
      : dir_(std::move(dir)), blobs_(std::move(blobs)) {}

  // The layer recorded for `key` whose blob is present; nullopt otherwise
  // (also for an unreadable key file).
  std::optional<CachedLayer> Lookup(const std::string& key) const;
  // Records `layer` (whose blob is in blobs()) under `key`.
  absl::Status Record(const std::string& key, const CachedLayer& layer) const;

  const oci::Layout& blobs() const { return blobs_; }

  // The blobs the key files under `dir` name (roots for store_gc.h), read
  // from every <key>.json; unreadable key files are skipped.
  static std::set<oci::Digest> ReferencedBlobs(const std::filesystem::path& dir);

 private:
  std::filesystem::path dir_;
  oci::Layout blobs_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_LAYER_CACHE_H_
