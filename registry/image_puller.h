// Pulling an image from a registry into an oci-layout:
//
//  1. the reference's manifest is fetched with an Accept list of the OCI
//     and Docker manifest and index types; an index (or Docker manifest
//     list) is resolved to the manifest of `platform` (default linux/amd64);
//  2. config and layers stream into the layout (blobs/<alg>/<hex>, written
//     to a temporary file and renamed), verified against their digest and
//     size; blobs the layout already holds are not downloaded ("Already
//     exists"). A download cut off mid-way (connection reset, timeout, a
//     short body) resumes with "Range: bytes=<received>-"; a registry that
//     answers 200 instead of 206 is read again from the start;
//  3. the manifest is stored and tagged last, so a failed pull leaves no
//     tag pointing at an incomplete image.
//
// Blobs move on a bounded pool of `jobs` threads (4, as for push), in the
// manifest's order (config, then the layers base first: the order an unpack
// that follows the pull through PullOptions::feed reads them in).
#ifndef TRAINPKG_REGISTRY_IMAGE_PULLER_H_
#define TRAINPKG_REGISTRY_IMAGE_PULLER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "registry/blob_feed.h"
#include "registry/blob_locations.h"
#include "registry/oci/layout.h"
#include "registry/oci/platform.h"
#include "registry/progress.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "registry/transfer_result.h"

namespace trainpkg::registry {

// linux/amd64.
oci::Platform DefaultPlatform();

struct PullOptions {
  oci::Platform platform = DefaultPlatform();
  int jobs = 4;                  // blobs in flight at once, >= 1
  int max_resumes = 3;           // Range resumes per blob after interrupted downloads
  Progress* progress = nullptr;  // not owned; may be null
  // Not owned; may be null: told that the source repository holds every
  // blob of the image. The caller saves it.
  BlobLocations* locations = nullptr;
  // Not owned; may be null: told of the manifest and of every blob's bytes
  // as they arrive, so a consumer can read them during the pull (an unpack
  // that starts with the first layer's first bytes). Told when the pull ends.
  BlobFeed* feed = nullptr;
};

// Pulls `source` into `layout` and tags the manifest `tag` there. NotFound
// (with the platforms offered) when an index has no manifest for the
// platform; DataLoss when content does not match its digest; errors name
// the blob and the repository.
absl::StatusOr<TransferResult> PullImage(RegistryClient& client, const Reference& source,
                                         const oci::Layout& layout, std::string_view tag,
                                         const PullOptions& options);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_IMAGE_PULLER_H_
