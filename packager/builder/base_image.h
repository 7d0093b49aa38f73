// The image a stage starts from, as the builder needs it: the config and the
// layer descriptors; the layers' contents only when a RUN needs them.
//   - `scratch`: an empty config for the build platform, no layers;
//   - `oci:DIR[:TAG]`: the manifest and config read from the layout (DIR
//     relative to the working directory, as skopeo and buildah read it); its
//     layer blobs stay where they are and are copied by the export step;
//   - a registry reference: manifest and config only, through a
//     RegistryBaseSource (registry_base_source.h); layers stay in the registry.
// Docker media types of a base's layers are mapped to their OCI equivalents
// (same bytes, same digests): the built manifest is OCI and never mixes.
#ifndef TRAINPKG_PACKAGER_BUILDER_BASE_IMAGE_H_
#define TRAINPKG_PACKAGER_BUILDER_BASE_IMAGE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/build_plan.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/image_config.h"
#include "registry/oci/layout.h"
#include "registry/oci/platform.h"

namespace trainpkg::packager::builder {

struct ResolvedBase {
  oci::ImageConfig config;
  std::vector<oci::Descriptor> layers;  // base first, OCI media types
  std::string name;                     // registry bases: the normalised reference; else ""
  oci::Digest manifest_digest;          // empty for scratch
  // The config blob's digest: the image's content (its layers' diff_ids
  // and config), whatever manifest annotations or compression carry it;
  // empty for scratch. Layer cache keys start from it.
  oci::Digest config_digest;
  std::optional<oci::Layout> layout;    // oci: bases: where the layer blobs are
};

// Fetches a registry base's manifest (the platform's, from an index) and
// config. Implementations must be thread-compatible.
class RegistryBaseSource {
 public:
  virtual ~RegistryBaseSource() = default;
  virtual absl::StatusOr<ResolvedBase> Fetch(std::string_view reference,
                                             const oci::Platform& platform) = 0;
  // Downloads `layer` of the image `name` (a ResolvedBase::name) into the
  // layout `into`, its digest checked: the one case (RUN) where a build
  // needs a base's layers.
  virtual absl::Status FetchLayer(std::string_view name, const oci::Descriptor& layer,
                                  const oci::Layout& into) = 0;
};

// Resolves a FROM that is not a stage. `registry` may be null: registry
// bases then fail with FailedPrecondition. Errors name the image.
absl::StatusOr<ResolvedBase> ResolveBase(const dockerfile::BaseImage& base,
                                         const oci::Platform& platform,
                                         RegistryBaseSource* registry);

// Layer descriptors as the built (OCI) manifest carries them.
std::vector<oci::Descriptor> ToOciLayers(std::vector<oci::Descriptor> layers);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_BASE_IMAGE_H_
