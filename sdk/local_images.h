// The local image store's management verbs (`trainpkg images rm|tag|
// inspect|prune`, `trainpkg system prune`), docker's semantics where they
// fit a daemonless store:
//
//   - rm untags; when an image loses its last tag, its blobs that no other
//     image and no build cache references are deleted.
//   - prune deletes dangling images (manifests no tag reaches) and blobs
//     nothing references; `all` untags every image first.
//   - system prune also drops the build cache ($TRAINPKG_HOME/build-cache:
//     layer keys, compressed-layer keys, file digests, spooled imports) and
//     the unpacked root filesystems ($TRAINPKG_HOME/rootfs) of images no
//     longer in the store.
//
// Blobs a remaining image or cache entry references are never deleted.
// Collections hold the store's gc.lock exclusive, builds and pushes hold it
// shared (packager/builder/store_lock.h), so a prune waits for a build and
// never deletes blobs the build has written but not yet tagged. Errors name
// the image asked for ("no such image: docker.io/library/x:latest").
#ifndef TRAINPKG_SDK_LOCAL_IMAGES_H_
#define TRAINPKG_SDK_LOCAL_IMAGES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "packager/builder/image_store.h"

namespace trainpkg::sdk {

struct RemovedImage {
  std::vector<std::string> untagged;  // normalised references
  std::vector<std::string> deleted;   // digests of deleted manifests and configs
  int64_t bytes = 0;
};

// Removes what `what` names (a reference, or an image ID or 4+ digit prefix
// of it: every tag of that image). FailedPrecondition when an ID names an
// image with several tags and `force` is false ("must be forced"); NotFound
// "no such image: ...".
absl::StatusOr<RemovedImage> RemoveImage(const base::Environment& environment,
                                         std::string_view what, bool force);

// Tags the image `source` (reference or ID) as `target`; returns the
// normalised target. NotFound for `source`, InvalidArgument for `target`.
absl::StatusOr<std::string> TagImage(const base::Environment& environment, std::string_view source,
                                     std::string_view target);

// `docker image inspect`'s object for what `what` names: Id, RepoTags,
// Digest (the manifest's), Created, Architecture, Os, Size, Manifest (the
// manifest JSON) and Config (the image config JSON), as JSON text.
absl::StatusOr<std::string> InspectImage(const base::Environment& environment,
                                         std::string_view what);

struct PruneOptions {
  bool all = false;     // untag every image first (`--all`)
  bool system = false;  // also the build cache and unreferenced rootfs caches
};

struct PruneReport {
  std::vector<std::string> untagged;  // with `all`
  std::vector<std::string> deleted;   // image manifest digests deleted
  int64_t blobs = 0;                  // blobs deleted, manifests included
  int64_t build_cache_entries = 0;    // files of the build cache removed
  std::vector<std::string> rootfs;    // rootfs cache entries removed
  int64_t bytes = 0;                  // reclaimed, all of the above
};

absl::StatusOr<PruneReport> PruneImages(const base::Environment& environment,
                                        const PruneOptions& options);

// Image manifests in the store that no tag reaches (`docker images --filter
// dangling=true`), as "<none>" "<none>" rows.
absl::StatusOr<std::vector<packager::builder::StoredImage>> ListDanglingImages(
    const base::Environment& environment);

// "1.20GB", "356.0kB", "0B": sizes in powers of 1000, as docker counts them.
std::string HumanSize(int64_t bytes);

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_LOCAL_IMAGES_H_
