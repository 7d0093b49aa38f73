#include "registry/oci/descriptor.h"

#include "base/json_object_reader.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/internal/canonical_json.h"
#include "registry/oci/internal/descriptor_json.h"

namespace trainpkg::oci {
namespace {

// RFC 6838 restricted-name: 1-127 of [A-Za-z0-9!#$&^_.+-], first alphanumeric.
bool IsRestrictedName(std::string_view name) {
  if (name.empty() || name.size() > 127) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return false;
  for (char c : name) {
    if (!alnum(c) && std::string_view("!#$&^_.+-").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace

Descriptor DescribeContent(std::string_view content, std::string_view media_type) {
  Descriptor descriptor;
  descriptor.media_type = std::string(media_type);
  descriptor.digest = Sha256Digest(content);
  descriptor.size = static_cast<int64_t>(content.size());
  return descriptor;
}

absl::StatusOr<Descriptor> ParseDescriptor(std::string_view json) {
  TP_ASSIGN_OR_RETURN(nlohmann::json parsed, base::ParseJson(json));
  return internal::DescriptorFromJson(parsed, "");
}

std::string SerializeDescriptor(const Descriptor& descriptor) {
  return internal::CanonicalDump(internal::DescriptorToJson(descriptor));
}

absl::Status ValidateDescriptor(const Descriptor& descriptor, std::string_view path) {
  std::string_view type = descriptor.media_type;
  size_t slash = type.find('/');
  if (slash == std::string_view::npos || !IsRestrictedName(type.substr(0, slash)) ||
      !IsRestrictedName(type.substr(slash + 1))) {
    return base::FieldError(
        base::FieldPath(path, "mediaType"),
        fmt::format("\"{}\" is not a media type (type/subtype, RFC 6838)", type));
  }
  if (descriptor.digest.empty()) {
    return base::FieldError(base::FieldPath(path, "digest"), "required field is missing");
  }
  if (descriptor.size < 0) {
    return base::FieldError(base::FieldPath(path, "size"),
                            fmt::format("must be >= 0, got {}", descriptor.size));
  }
  if (descriptor.platform.has_value()) {
    std::string platform_path = base::FieldPath(path, "platform");
    if (descriptor.platform->os.empty()) {
      return base::FieldError(base::FieldPath(platform_path, "os"), "required field is missing");
    }
    if (descriptor.platform->architecture.empty()) {
      return base::FieldError(base::FieldPath(platform_path, "architecture"),
                              "required field is missing");
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::oci
