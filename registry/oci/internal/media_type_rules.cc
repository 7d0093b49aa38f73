#include "registry/oci/internal/media_type_rules.h"

#include "fmt/format.h"

namespace trainpkg::oci::internal {

absl::Status CheckSameFamily(const Descriptor& descriptor, std::string_view path,
                             MediaTypeFamily family, std::string_view kind) {
  MediaTypeFamily own = FamilyOf(descriptor.media_type);
  if (own == MediaTypeFamily::kOther || family == MediaTypeFamily::kOther || own == family) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      fmt::format("{} ({}): {} media type {} in {} {} {}; OCI and Docker media types are never "
                  "mixed",
                  path, descriptor.digest.ToString(), FamilyName(own), descriptor.media_type,
                  family == MediaTypeFamily::kOci ? "an" : "a", FamilyName(family), kind));
}

}  // namespace trainpkg::oci::internal
