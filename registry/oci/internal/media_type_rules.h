// The no-mixing rule shared by manifests and indexes.
#ifndef TRAINPKG_REGISTRY_OCI_INTERNAL_MEDIA_TYPE_RULES_H_
#define TRAINPKG_REGISTRY_OCI_INTERNAL_MEDIA_TYPE_RULES_H_

#include <string_view>

#include "absl/status/status.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/media_types.h"

namespace trainpkg::oci::internal {

// InvalidArgument "<path> (<digest>): Docker media type <type> in an OCI
// <kind>" when the descriptor's type belongs to the family other than
// `family`. Types of neither family (artifacts) pass.
absl::Status CheckSameFamily(const Descriptor& descriptor, std::string_view path,
                             MediaTypeFamily family, std::string_view kind);

}  // namespace trainpkg::oci::internal

#endif  // TRAINPKG_REGISTRY_OCI_INTERNAL_MEDIA_TYPE_RULES_H_
