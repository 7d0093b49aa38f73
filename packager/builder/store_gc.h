// Garbage collection of an oci-layout's blobs (the local image store's):
// mark every blob reachable from index.json (manifests, indexes, configs,
// layers) and from `extra_roots` (the layer caches' blobs, layer_cache.h),
// then delete the others.
//
// REQUIRES: the caller holds StoreLock::ForCollection(layout.root(),
// kExclusive) (store_lock.h), so no writer has blobs it has not referenced
// yet. Files under blobs/ that are not named like a digest (a BlobWriter's
// temporary file) are never touched.
#ifndef TRAINPKG_PACKAGER_BUILDER_STORE_GC_H_
#define TRAINPKG_PACKAGER_BUILDER_STORE_GC_H_

#include <cstdint>
#include <set>
#include <vector>

#include "absl/status/statusor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

struct CollectedBlobs {
  std::vector<oci::Digest> manifests;  // image manifests among the deleted blobs
  int64_t blobs = 0;                   // blobs deleted
  int64_t bytes = 0;                   // their size on disk
};

// Deletes unreachable blobs; with `candidates`, only those among them.
// Errors: a reachable manifest or index that cannot be read (nothing is
// deleted then), errno-derived ones naming the blob.
absl::StatusOr<CollectedBlobs> CollectBlobs(const oci::Layout& layout,
                                            const std::set<oci::Digest>& extra_roots,
                                            const std::set<oci::Digest>* candidates = nullptr);

// The image manifests stored in `layout` that no index.json entry reaches
// (`docker images --filter dangling=true`): blobs under 4 MiB that parse as
// an image manifest.
absl::StatusOr<std::vector<oci::Digest>> DanglingManifests(const oci::Layout& layout);

// `root` (a manifest or index in `layout`) and every blob it reaches that
// the layout holds.
absl::StatusOr<std::set<oci::Digest>> ReachableBlobs(const oci::Layout& layout,
                                                     const oci::Descriptor& root);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_STORE_GC_H_
