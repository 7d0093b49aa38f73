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
// Thread safety: Resolve may run from several threads; pulls into the store
// retag index.json, so two processes pulling at once may lose a tag (the
// blobs stay; the next Resolve pulls the tag again).
#ifndef TRAINPKG_SDK_INTERNAL_IMAGE_RESOLVER_H_
#define TRAINPKG_SDK_INTERNAL_IMAGE_RESOLVER_H_

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/image_uri.h"
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

// Pulls `reference` into `store`, tagged `tag` there.
using ImagePuller = std::function<absl::Status(const registry::Reference& reference,
                                               const oci::Layout& store, const std::string& tag)>;

// Pulls with registry/'s client, docker's credentials (config.json and
// helpers found through `environment`) and linux/amd64.
ImagePuller RegistryImagePuller(std::map<std::string, std::string> environment);

class ImageResolver {
 public:
  // `pull` may be null: images absent from the store are then NotFound.
  ImageResolver(std::filesystem::path home, ImagePuller pull)
      : home_(std::move(home)), pull_(std::move(pull)) {}

  absl::StatusOr<ResolvedImage> Resolve(const jobspec::ImageUri& image_uri) const;

 private:
  absl::StatusOr<ResolvedImage> FromLayout(const jobspec::ImageUri& image_uri) const;
  absl::StatusOr<ResolvedImage> FromStore(const jobspec::ImageUri& image_uri) const;

  std::filesystem::path home_;
  ImagePuller pull_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_IMAGE_RESOLVER_H_
