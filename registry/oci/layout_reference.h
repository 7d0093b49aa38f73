// `oci:DIR[:TAG]`, the way skopeo and umoci name an image in an oci-layout
// directory, and the rule for tag names (org.opencontainers.image.ref.name).
#ifndef TRAINPKG_REGISTRY_OCI_LAYOUT_REFERENCE_H_
#define TRAINPKG_REGISTRY_OCI_LAYOUT_REFERENCE_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::oci {

struct LayoutReference {
  std::filesystem::path dir{};
  std::string tag{};  // empty: the layout's only manifest

  friend bool operator==(const LayoutReference&, const LayoutReference&) = default;
};

// "oci:DIR" or "oci:DIR:TAG". As in containers/image, the directory ends at
// the first ':' after "oci:", so DIR cannot contain one. InvalidArgument for
// another prefix, an empty DIR, or a TAG that ValidateRefName rejects.
absl::StatusOr<LayoutReference> ParseLayoutReference(std::string_view text);
std::string FormatLayoutReference(const LayoutReference& reference);

// image-layout.md's ref grammar: components of [A-Za-z0-9]+ joined by
// separators [-._:@+] or "--", optionally in "/"-separated groups ("v1.0",
// "latest", "stable-2"). InvalidArgument naming the tag otherwise.
absl::Status ValidateRefName(std::string_view tag);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_LAYOUT_REFERENCE_H_
