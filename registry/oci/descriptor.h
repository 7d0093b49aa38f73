// A content descriptor: what a manifest or index says about a blob it points
// to (image-spec descriptor.md). Value type; thread-compatible.
#ifndef TRAINPKG_REGISTRY_OCI_DESCRIPTOR_H_
#define TRAINPKG_REGISTRY_OCI_DESCRIPTOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/annotations.h"
#include "registry/oci/digest.h"
#include "registry/oci/platform.h"

namespace trainpkg::oci {

struct Descriptor {
  std::string media_type{};            // "mediaType", required
  Digest digest{};                     // "digest", required
  int64_t size = 0;                    // "size", required, >= 0
  std::vector<std::string> urls{};     // "urls"
  Annotations annotations{};           // "annotations"
  std::optional<std::string> data{};   // "data": the content, base64, kept as read
  std::optional<Platform> platform{};  // "platform", on manifests in an index
  std::string artifact_type{};         // "artifactType"

  friend bool operator==(const Descriptor&, const Descriptor&) = default;
};

// A descriptor of `content` (sha256, its size) with `media_type`.
Descriptor DescribeContent(std::string_view content, std::string_view media_type);

// One descriptor as JSON text. ParseDescriptor: InvalidArgument naming the
// JSON path of the first problem. SerializeDescriptor: canonical bytes.
absl::StatusOr<Descriptor> ParseDescriptor(std::string_view json);
std::string SerializeDescriptor(const Descriptor& descriptor);

// The descriptor rules that hold whatever points at it: a media type of the
// form type/subtype, a non-empty digest, size >= 0, and a platform (if any)
// with os and architecture. `path` prefixes errors ("layers[2]").
absl::Status ValidateDescriptor(const Descriptor& descriptor, std::string_view path);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_DESCRIPTOR_H_
