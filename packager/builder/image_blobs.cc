#include "packager/builder/image_blobs.h"

#include <string>

#include "base/status_macros.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder {

absl::Status WriteConfigAndManifest(const oci::ImageProvenance& provenance,
                                    const oci::Layout& store, BuiltImage* built) {
  TP_RETURN_IF_ERROR(oci::ValidateImageConfig(built->config));
  TP_ASSIGN_OR_RETURN(built->config_descriptor,
                      store.WriteBlob(oci::SerializeImageConfig(built->config),
                                      oci::media_types::kOciImageConfig));
  built->manifest.config = built->config_descriptor;
  built->manifest.annotations = oci::ProvenanceAnnotations(provenance);
  TP_RETURN_IF_ERROR(oci::ValidateImageManifest(built->manifest));
  built->manifest_bytes = oci::SerializeImageManifest(built->manifest);
  TP_ASSIGN_OR_RETURN(built->manifest_descriptor,
                      store.WriteBlob(built->manifest_bytes, oci::media_types::kOciImageManifest));
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::builder
