// An image manifest: OCI image-spec v1.1 (application/vnd.oci.image.manifest.v1+json)
// or Docker schema2 (application/vnd.docker.distribution.manifest.v2+json).
//
//   TP_ASSIGN_OR_RETURN(ImageManifest m, ParseImageManifest(bytes));
//   TP_RETURN_IF_ERROR(ValidateImageManifest(m));
//   std::string out = SerializeImageManifest(m);   // canonical bytes
//
// Parsing checks JSON shape and types only (InvalidArgument naming the JSON
// path); ValidateImageManifest checks the spec's rules. Unknown JSON fields
// are ignored, as the spec requires; the digest of a manifest read from
// elsewhere is the digest of the bytes read, not of SerializeImageManifest.
#ifndef TRAINPKG_REGISTRY_OCI_IMAGE_MANIFEST_H_
#define TRAINPKG_REGISTRY_OCI_IMAGE_MANIFEST_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/annotations.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/image_config.h"
#include "registry/oci/media_types.h"

namespace trainpkg::oci {

struct ImageManifest {
  int schema_version = 2;                                  // "schemaVersion"
  std::string media_type{media_types::kOciImageManifest};  // "mediaType" (optional for OCI)
  std::string artifact_type{};                             // "artifactType"
  Descriptor config{};                                     // "config"
  std::vector<Descriptor> layers{};                        // "layers", base first
  std::optional<Descriptor> subject{};                     // "subject"
  Annotations annotations{};                               // "annotations"

  friend bool operator==(const ImageManifest&, const ImageManifest&) = default;
};

absl::StatusOr<ImageManifest> ParseImageManifest(std::string_view json);
// Canonical: fields in spec order, no whitespace; always emits schemaVersion,
// config and layers (as [] when empty); omits empty optional fields.
std::string SerializeImageManifest(const ImageManifest& manifest);

// The family the manifest belongs to: from its mediaType, or OCI when it has
// none (an OCI manifest may omit it; a Docker one may not).
MediaTypeFamily ManifestFamily(const ImageManifest& manifest);

// Image-spec rules: schemaVersion 2; mediaType an image manifest type when
// set (required for Docker); every descriptor valid; no descriptor of the
// other family (the error names it: "layers[1] (sha256:…): Docker media type
// … in an OCI manifest"); Docker manifests use a Docker config and layer
// types and carry no subject or artifactType; artifactType required when the
// config is the empty descriptor; with an image config, every layer has a
// layer media type. InvalidArgument on the first violation.
absl::Status ValidateImageManifest(const ImageManifest& manifest);

// A manifest and its config describe one image: the config descriptor has an
// image config type and the config has one diff_id per layer.
absl::Status ValidateImage(const ImageManifest& manifest, const ImageConfig& config);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_IMAGE_MANIFEST_H_
