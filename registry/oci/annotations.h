// Annotations (string -> string, reverse-DNS keys) and the pre-defined
// org.opencontainers.image.* keys trainpkg writes (image-spec annotations.md).
#ifndef TRAINPKG_REGISTRY_OCI_ANNOTATIONS_H_
#define TRAINPKG_REGISTRY_OCI_ANNOTATIONS_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trainpkg::oci {

// Sorted by key, which is also the order they serialize in.
using Annotations = std::map<std::string, std::string>;

namespace annotations {
inline constexpr std::string_view kCreated = "org.opencontainers.image.created";
inline constexpr std::string_view kSource = "org.opencontainers.image.source";
inline constexpr std::string_view kRevision = "org.opencontainers.image.revision";
inline constexpr std::string_view kVersion = "org.opencontainers.image.version";
inline constexpr std::string_view kTitle = "org.opencontainers.image.title";
// Fully qualified reference of the FROM image, no assumed default registry.
inline constexpr std::string_view kBaseName = "org.opencontainers.image.base.name";
// Manifest digest of the FROM image.
inline constexpr std::string_view kBaseDigest = "org.opencontainers.image.base.digest";
// A tag; only meaningful on descriptors in an oci-layout's index.json.
inline constexpr std::string_view kRefName = "org.opencontainers.image.ref.name";
}  // namespace annotations

// RFC 3339 in UTC with whole seconds, "2026-11-22T10:00:00Z": the form image
// configs and the `created` annotation carry (sub-seconds are dropped so the
// same SOURCE_DATE_EPOCH gives the same bytes).
std::string FormatRfc3339(absl::Time time);
// Any RFC 3339 date-time (offsets, fractional seconds). InvalidArgument otherwise.
absl::StatusOr<absl::Time> ParseRfc3339(std::string_view text);

// The provenance annotations of a built image, with the empty ones left out.
struct ImageProvenance {
  std::string created{};      // RFC 3339 (FormatRfc3339)
  std::string source{};       // URL of the source
  std::string revision{};     // VCS revision
  std::string base_name{};    // e.g. "docker.io/library/debian:12"
  std::string base_digest{};  // "sha256:..."
};
Annotations ProvenanceAnnotations(const ImageProvenance& provenance);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_ANNOTATIONS_H_
