// Pushing an image or an index from an oci-layout to a registry:
//
//  1. every blob (config and layers) is HEADed on the target and skipped
//     when present ("Layer already exists");
//  2. otherwise a cross-repository mount is tried from the base image's
//     repository (the manifest's org.opencontainers.image.base.name, when
//     it is on the same registry) and from `mount_sources`; 201 means
//     mounted, a 202 session is used for the upload (last source) or
//     cancelled with DELETE;
//  3. otherwise the blob is uploaded from the layout (blob_upload.h);
//     a blob the layout does not hold (a shallow base layer) is never
//     downloaded: it must be present or mountable, else FailedPrecondition;
//  4. only when every blob is there is the manifest PUT (Content-Type = its
//     media type, Docker-Content-Digest checked), so the registry never
//     holds a manifest with missing blobs. An index's manifests are pushed
//     by digest first, then the index under the tag.
//
// Blobs move on a bounded pool of `jobs` threads, largest first (a big
// layer never waits for a slot behind small ones). Default 4: what
// go-containerregistry, ko and kaniko use; one stream already reaches a
// registry's own write-and-hash rate (reference/peers.md: ~200 MB/s for
// distribution 2.8 on loopback), so more streams only add contention,
// while 4 keeps several small layers and one big one moving together.
#ifndef TRAINPKG_REGISTRY_IMAGE_PUSHER_H_
#define TRAINPKG_REGISTRY_IMAGE_PUSHER_H_

#include <set>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "registry/blob_locations.h"
#include "registry/blob_upload.h"
#include "registry/oci/layout.h"
#include "registry/progress.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "registry/transfer_result.h"

namespace trainpkg::registry {

struct PushOptions {
  int jobs = 4;  // blobs in flight at once, >= 1
  UploadOptions upload{};
  // Repositories of the target registry that may hold the blobs (tried in
  // order after the base image's repository).
  std::vector<Repository> mount_sources{};
  Progress* progress = nullptr;  // not owned; may be null
  // Not owned; may be null. Its repositories for a blob are tried as mount
  // sources first; every blob that ends up in the target (pushed, already
  // there, mounted) is recorded there. The caller saves it.
  BlobLocations* locations = nullptr;
  // Blobs the caller has just uploaded to the target repository itself (a
  // StreamedUpload committed): reported as pushed, not asked for again.
  std::set<oci::Digest> uploaded{};
};

// Pushes the layout's image or index tagged `tag` (empty: its only one) to
// `target` (its tag, else its digest, which must then match). Errors name
// the blob or manifest and the repository; nothing is tagged on failure.
absl::StatusOr<TransferResult> PushImage(RegistryClient& client, const oci::Layout& layout,
                                         std::string_view tag, const Reference& target,
                                         const PushOptions& options);

// The same for the image or index `root` (a manifest blob of `layout`,
// tagged or not).
absl::StatusOr<TransferResult> PushImage(RegistryClient& client, const oci::Layout& layout,
                                         const oci::Descriptor& root, const Reference& target,
                                         const PushOptions& options);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_IMAGE_PUSHER_H_
