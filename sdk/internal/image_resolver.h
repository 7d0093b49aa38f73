// Finds the image a container-mode replica runs: an oci-layout image
// ("oci:DIR[:TAG]") is read from that layout; a registry reference
// ("trainer:v1", "127.0.0.1:5000/app@sha256:…") is looked up in the local image
// store (<home>/images, where `trainpkg build -t` and this resolver put
// images) and, when absent there, pulled into it from its registry.
//
// Errors name the imageUri: InvalidArgument for a local: executable (not an
// image), an oci TAG or a reference that registry/'s grammar refuses,
// NotFound when the image is in neither the store nor the registry,
// FailedPrecondition when the image is incomplete (blobs missing) or has no
// image config, the registry's errors when pulling fails.
//
// ResolveStreaming is the cold path of a job: an image that must be pulled
// comes back once its manifest and config are in, with the pull still
// running (PullInFlight), so its layers can be unpacked while they download.
//
// Thread safety: Resolve may run from several threads; pulls into the store
// retag index.json, so two processes pulling at once may lose a tag (the
// blobs stay; the next Resolve pulls the tag again).
#ifndef TRAINPKG_SDK_INTERNAL_IMAGE_RESOLVER_H_
#define TRAINPKG_SDK_INTERNAL_IMAGE_RESOLVER_H_

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "jobspec/image_uri.h"
#include "packager/builder/store_lock.h"
#include "packager/unpack/layer_unpacker.h"
#include "registry/blob_feed.h"
#include "registry/oci/layout.h"
#include "registry/reference.h"

namespace trainpkg::sdk::internal {

struct ResolvedImage {
  oci::Layout layout;      // holds every blob of the image
  oci::LayoutImage image;  // config present
  // The image as a Dockerfile FROM names it: "oci:DIR[:TAG]" of the layout
  // it was found in (the store's tags are normalised references).
  std::string layout_reference;
};

// Pulls `reference` into `store`, tagged `tag` there; tells `feed` (may be
// null) of the manifest and of each blob's bytes as they arrive, and when
// the pull ends.
using ImagePuller =
    std::function<absl::Status(const registry::Reference& reference, const oci::Layout& store,
                               const std::string& tag, registry::BlobFeed* feed)>;

// A pull running on a thread of its own, its blobs readable as they arrive.
class PullInFlight {
 public:
  // Starts `pull` of `reference` into `store` (tag `tag`); `gc_lock` is held
  // until the pull ends, so a prune never takes blobs before they are tagged.
  PullInFlight(const ImagePuller& pull, registry::Reference reference, oci::Layout store,
               std::string tag, packager::builder::StoreLock gc_lock);
  // Cancels the pull unless Wait() was called, and waits for it.
  ~PullInFlight();
  PullInFlight(const PullInFlight&) = delete;
  PullInFlight& operator=(const PullInFlight&) = delete;

  // The manifest and the image config (read through the feed, its digest
  // checked), once they are in.
  absl::StatusOr<oci::LayoutImage> WaitForImage();
  // Layer blobs, read as they download (packager/unpack's opener).
  packager::unpack::BlobOpener Blobs();
  // The consumer gave up: the pull stops soon with `why`.
  void Cancel(absl::Status why) { feed_.Cancel(std::move(why)); }
  // Waits for the pull to end; its status. REQUIRES: called once.
  absl::Status Wait();

 private:
  registry::BlobFeed feed_;
  absl::Status status_;
  std::thread thread_;
  bool waited_ = false;
  packager::builder::StoreLock gc_lock_;
};

struct StreamingImage {
  // With `pull` null, the image is complete in `resolved.layout`. Otherwise
  // `resolved.image` has the manifest and config only and the layers are
  // still arriving: read them through pull->Blobs(), then pull->Wait() and
  // Resolve again for the stored image.
  ResolvedImage resolved;
  std::unique_ptr<PullInFlight> pull;
};

// Pulls with registry/'s client, docker's credentials (config.json and
// helpers found through `environment`) and linux/amd64.
ImagePuller RegistryImagePuller(std::map<std::string, std::string> environment);

class ImageResolver {
 public:
  // `pull` may be null: images absent from the store are then NotFound.
  ImageResolver(std::filesystem::path home, ImagePuller pull)
      : home_(std::move(home)), pull_(std::move(pull)) {}

  absl::StatusOr<ResolvedImage> Resolve(const jobspec::ImageUri& image_uri) const;
  // Like Resolve, but an image it must pull comes back as soon as its
  // manifest and config are in, the pull still running (StreamingImage).
  absl::StatusOr<StreamingImage> ResolveStreaming(const jobspec::ImageUri& image_uri) const;

 private:
  // The store's tag of a registry reference, and the reference; errors name
  // the imageUri.
  struct StoreTag {
    registry::Reference reference;
    std::string tag;
  };
  static absl::StatusOr<StoreTag> StoreTagOf(const jobspec::ImageUri& image_uri);
  absl::StatusOr<ResolvedImage> FromLayout(const jobspec::ImageUri& image_uri) const;
  absl::StatusOr<ResolvedImage> FromStore(const jobspec::ImageUri& image_uri) const;

  std::filesystem::path home_;
  ImagePuller pull_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_IMAGE_RESOLVER_H_
