#include "registry/oci/image_manifest.h"

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

absl::StatusOr<ImageManifest> ManifestFromJson(const nlohmann::json& json) {
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(json, "", base::kPlainJson));
  ImageManifest manifest;
  manifest.media_type.clear();
  TP_RETURN_IF_ERROR(internal::ReadSchemaVersion(reader, &manifest.schema_version));
  TP_RETURN_IF_ERROR(reader.ReadString("mediaType", &manifest.media_type));
  TP_RETURN_IF_ERROR(reader.ReadString("artifactType", &manifest.artifact_type));
  TP_RETURN_IF_ERROR(reader.Require("config"));
  TP_ASSIGN_OR_RETURN(manifest.config,
                      internal::DescriptorFromJson(*reader.Find("config"), "config"));
  TP_RETURN_IF_ERROR(internal::ReadDescriptorList(reader, "layers", &manifest.layers));
  TP_RETURN_IF_ERROR(internal::ReadOptionalDescriptor(reader, "subject", &manifest.subject));
  TP_RETURN_IF_ERROR(reader.ReadStringMap("annotations", &manifest.annotations));
  return manifest;
}

}  // namespace

absl::StatusOr<ImageManifest> ParseImageManifest(std::string_view json) {
  absl::StatusOr<nlohmann::json> parsed = base::ParseJson(json);
  absl::StatusOr<ImageManifest> manifest =
      parsed.ok() ? ManifestFromJson(*parsed) : absl::StatusOr<ImageManifest>(parsed.status());
  if (!manifest.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("image manifest: {}", std::string(manifest.status().message())));
  }
  return manifest;
}

std::string SerializeImageManifest(const ImageManifest& manifest) {
  OrderedJson json = OrderedJson::object();
  json["schemaVersion"] = manifest.schema_version;
  internal::PutString(json, "mediaType", manifest.media_type);
  internal::PutString(json, "artifactType", manifest.artifact_type);
  json["config"] = internal::DescriptorToJson(manifest.config);
  json["layers"] = internal::DescriptorListToJson(manifest.layers);
  if (manifest.subject.has_value()) json["subject"] = internal::DescriptorToJson(*manifest.subject);
  internal::PutStringMap(json, "annotations", manifest.annotations);
  return internal::CanonicalDump(json);
}

MediaTypeFamily ManifestFamily(const ImageManifest& manifest) {
  if (manifest.media_type.empty()) return MediaTypeFamily::kOci;
  return FamilyOf(manifest.media_type);
}

absl::Status ValidateImageManifest(const ImageManifest& manifest) {
  if (manifest.schema_version != 2) {
    return FieldError("schemaVersion", fmt::format("must be 2, got {}", manifest.schema_version));
  }
  if (!manifest.media_type.empty() && !IsManifestMediaType(manifest.media_type)) {
    return FieldError("mediaType",
                      fmt::format("\"{}\" is not an image manifest media type (expected {} or {})",
                                  manifest.media_type, media_types::kOciImageManifest,
                                  media_types::kDockerManifest));
  }
  MediaTypeFamily family = ManifestFamily(manifest);
  std::string_view kind = "manifest";
  TP_RETURN_IF_ERROR(ValidateDescriptor(manifest.config, "config"));
  TP_RETURN_IF_ERROR(internal::CheckSameFamily(manifest.config, "config", family, kind));
  for (size_t i = 0; i < manifest.layers.size(); ++i) {
    std::string path = IndexPath("layers", i);
    TP_RETURN_IF_ERROR(ValidateDescriptor(manifest.layers[i], path));
    TP_RETURN_IF_ERROR(internal::CheckSameFamily(manifest.layers[i], path, family, kind));
  }
  if (manifest.subject.has_value()) {
    TP_RETURN_IF_ERROR(ValidateDescriptor(*manifest.subject, "subject"));
  }
  if (family == MediaTypeFamily::kDocker) {
    if (manifest.config.media_type != media_types::kDockerConfig) {
      return FieldError("config.mediaType",
                        fmt::format("a Docker manifest needs config type {}, got \"{}\"",
                                    media_types::kDockerConfig, manifest.config.media_type));
    }
    if (manifest.subject.has_value()) {
      return FieldError("subject", "OCI-only field in a Docker manifest");
    }
    if (!manifest.artifact_type.empty()) {
      return FieldError("artifactType", "OCI-only field in a Docker manifest");
    }
  }
  if (manifest.config.media_type == media_types::kOciEmpty && manifest.artifact_type.empty()) {
    return FieldError("artifactType",
                      fmt::format("required when config.mediaType is {}", media_types::kOciEmpty));
  }
  if (IsImageConfigMediaType(manifest.config.media_type)) {
    for (size_t i = 0; i < manifest.layers.size(); ++i) {
      if (!IsLayerMediaType(manifest.layers[i].media_type)) {
        return FieldError(IndexPath("layers", i) + ".mediaType",
                          fmt::format("\"{}\" is not a layer media type (the config is an image "
                                      "config)",
                                      manifest.layers[i].media_type));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateImage(const ImageManifest& manifest, const ImageConfig& config) {
  if (!IsImageConfigMediaType(manifest.config.media_type)) {
    return FieldError("config.mediaType", fmt::format("\"{}\" is not an image config media type",
                                                      manifest.config.media_type));
  }
  if (manifest.layers.size() != config.rootfs.diff_ids.size()) {
    return absl::InvalidArgumentError(
        fmt::format("the manifest has {} layers but the config's rootfs.diff_ids has {}",
                    manifest.layers.size(), config.rootfs.diff_ids.size()));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::oci
