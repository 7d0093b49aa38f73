#include "registry/oci/image_index.h"

#include <utility>

#include "base/json_object_reader.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/internal/canonical_json.h"
#include "registry/oci/internal/descriptor_json.h"
#include "registry/oci/internal/media_type_rules.h"

namespace trainpkg::oci {
namespace {

using base::FieldError;
using base::IndexPath;
using base::JsonObjectReader;
using internal::OrderedJson;

absl::StatusOr<ImageIndex> IndexFromJson(const nlohmann::json& json) {
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(json, "", base::kPlainJson));
  ImageIndex index;
  index.media_type.clear();
  TP_RETURN_IF_ERROR(internal::ReadSchemaVersion(reader, &index.schema_version));
  TP_RETURN_IF_ERROR(reader.ReadString("mediaType", &index.media_type));
  TP_RETURN_IF_ERROR(reader.ReadString("artifactType", &index.artifact_type));
  TP_RETURN_IF_ERROR(reader.Require("manifests"));
  TP_RETURN_IF_ERROR(internal::ReadDescriptorList(reader, "manifests", &index.manifests));
  TP_RETURN_IF_ERROR(internal::ReadOptionalDescriptor(reader, "subject", &index.subject));
  TP_RETURN_IF_ERROR(reader.ReadStringMap("annotations", &index.annotations));
  return index;
}

}  // namespace

absl::StatusOr<ImageIndex> ParseImageIndex(std::string_view json) {
  absl::StatusOr<nlohmann::json> parsed = base::ParseJson(json);
  absl::StatusOr<ImageIndex> index =
      parsed.ok() ? IndexFromJson(*parsed) : absl::StatusOr<ImageIndex>(parsed.status());
  if (!index.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("image index: {}", std::string(index.status().message())));
  }
  return index;
}

std::string SerializeImageIndex(const ImageIndex& index) {
  OrderedJson json = OrderedJson::object();
  json["schemaVersion"] = index.schema_version;
  internal::PutString(json, "mediaType", index.media_type);
  internal::PutString(json, "artifactType", index.artifact_type);
  json["manifests"] = internal::DescriptorListToJson(index.manifests);
  if (index.subject.has_value()) json["subject"] = internal::DescriptorToJson(*index.subject);
  internal::PutStringMap(json, "annotations", index.annotations);
  return internal::CanonicalDump(json);
}

absl::Status ValidateImageIndex(const ImageIndex& index) {
  if (index.schema_version != 2) {
    return FieldError("schemaVersion", fmt::format("must be 2, got {}", index.schema_version));
  }
  if (!index.media_type.empty() && !IsIndexMediaType(index.media_type)) {
    return FieldError(
        "mediaType",
        fmt::format("\"{}\" is not an image index media type (expected {} or {})", index.media_type,
                    media_types::kOciImageIndex, media_types::kDockerManifestList));
  }
  MediaTypeFamily family =
      index.media_type.empty() ? MediaTypeFamily::kOci : FamilyOf(index.media_type);
  for (size_t i = 0; i < index.manifests.size(); ++i) {
    const Descriptor& entry = index.manifests[i];
    std::string path = IndexPath("manifests", i);
    TP_RETURN_IF_ERROR(ValidateDescriptor(entry, path));
    TP_RETURN_IF_ERROR(internal::CheckSameFamily(entry, path, family, "index"));
    if (family == MediaTypeFamily::kDocker) {
      if (entry.media_type != media_types::kDockerManifest) {
        return FieldError(path + ".mediaType",
                          fmt::format("a Docker manifest list holds only {}, got \"{}\"",
                                      media_types::kDockerManifest, entry.media_type));
      }
      if (!entry.platform.has_value()) {
        return FieldError(path + ".platform", "required in a Docker manifest list");
      }
    }
  }
  if (index.subject.has_value()) {
    TP_RETURN_IF_ERROR(ValidateDescriptor(*index.subject, "subject"));
  }
  if (family == MediaTypeFamily::kDocker &&
      (index.subject.has_value() || !index.artifact_type.empty())) {
    return FieldError(index.subject.has_value() ? "subject" : "artifactType",
                      "OCI-only field in a Docker manifest list");
  }
  return absl::OkStatus();
}

absl::StatusOr<Descriptor> SelectManifest(const ImageIndex& index, const Platform& wanted) {
  std::vector<std::string> offered;
  for (const Descriptor& entry : index.manifests) {
    if (!entry.platform.has_value()) continue;
    if (PlatformMatches(*entry.platform, wanted)) return entry;
    offered.push_back(FormatPlatform(*entry.platform));
  }
  return absl::NotFoundError(
      fmt::format("no manifest for platform {} in the index (it has: {})", FormatPlatform(wanted),
                  offered.empty() ? std::string("no platform entries")
                                  : fmt::format("{}", fmt::join(offered, ", "))));
}

}  // namespace trainpkg::oci
