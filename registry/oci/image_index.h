// An image index: OCI application/vnd.oci.image.index.v1+json or a Docker
// manifest list (application/vnd.docker.distribution.manifest.list.v2+json).
// Also the shape of an oci-layout's index.json. Same parse / serialize /
// validate contract as image_manifest.h.
#ifndef TRAINPKG_REGISTRY_OCI_IMAGE_INDEX_H_
#define TRAINPKG_REGISTRY_OCI_IMAGE_INDEX_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/annotations.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/media_types.h"
#include "registry/oci/platform.h"

namespace trainpkg::oci {

struct ImageIndex {
  int schema_version = 2;                               // "schemaVersion"
  std::string media_type{media_types::kOciImageIndex};  // "mediaType" (optional for OCI)
  std::string artifact_type{};                          // "artifactType"
  std::vector<Descriptor> manifests{};                  // "manifests", may be empty
  std::optional<Descriptor> subject{};                  // "subject"
  Annotations annotations{};                            // "annotations"

  friend bool operator==(const ImageIndex&, const ImageIndex&) = default;
};

absl::StatusOr<ImageIndex> ParseImageIndex(std::string_view json);
// Canonical bytes; "manifests" always present ([] when empty).
std::string SerializeImageIndex(const ImageIndex& index);

// schemaVersion 2; mediaType an index type when set (required for a Docker
// list); every entry a valid descriptor of the index's family (the error
// names the entry); in a Docker list every entry is a Docker manifest with a
// platform, and there is no subject or artifactType.
absl::Status ValidateImageIndex(const ImageIndex& index);

// The first entry whose platform satisfies `wanted` (PlatformMatches), as
// the spec asks; entries without a platform never match. NotFound listing the
// platforms the index offers otherwise.
absl::StatusOr<Descriptor> SelectManifest(const ImageIndex& index, const Platform& wanted);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_IMAGE_INDEX_H_
