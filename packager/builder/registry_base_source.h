// Registry bases through registry::RegistryClient: the manifest (from an
// index, the first entry matching the build platform) and the config blob;
// layers only through FetchLayer (for RUN). The result's `name` is the normalised reference
// (without digest), `manifest_digest` the platform manifest's digest: the base.name/base.digest
// annotations that let a push mount the base layers.
#ifndef TRAINPKG_PACKAGER_BUILDER_REGISTRY_BASE_SOURCE_H_
#define TRAINPKG_PACKAGER_BUILDER_REGISTRY_BASE_SOURCE_H_

#include "packager/builder/base_image.h"
#include "registry/registry_client.h"

namespace trainpkg::packager::builder {

class RegistryClientBaseSource final : public RegistryBaseSource {
 public:
  // `client` is not owned and must outlive this object.
  explicit RegistryClientBaseSource(registry::RegistryClient* client) : client_(client) {}

  // Errors: the client's (naming the reference), NotFound when an index has
  // no manifest for `platform` (listing those it has), InvalidArgument for a
  // manifest or config that does not parse.
  absl::StatusOr<ResolvedBase> Fetch(std::string_view reference,
                                     const oci::Platform& platform) override;
  // Errors: the client's (naming the image and layer); DataLoss for a
  // digest mismatch (nothing is stored then).
  absl::Status FetchLayer(std::string_view name, const oci::Descriptor& layer,
                          const oci::Layout& into) override;

 private:
  registry::RegistryClient* client_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_REGISTRY_BASE_SOURCE_H_
