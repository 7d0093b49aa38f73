#include "registry/oci/internal/descriptor_json.h"

#include <utility>

#include "base/json_object_reader.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::oci::internal {
namespace {

absl::StatusOr<Digest> DigestAt(const nlohmann::json& json, const std::string& path) {
  TP_ASSIGN_OR_RETURN(std::string text, base::JsonString(json, path, base::kPlainJson));
  absl::StatusOr<Digest> digest = Digest::Parse(text);
  if (!digest.ok()) return base::FieldError(path, std::string(digest.status().message()));
  return digest;
}

}  // namespace

absl::Status ReadDigest(const base::JsonObjectReader& reader, std::string_view key, Digest* out) {
  const nlohmann::json* json = reader.Find(key);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, DigestAt(*json, reader.PathOf(key)));
  return absl::OkStatus();
}

absl::Status ReadDigestList(const base::JsonObjectReader& reader, std::string_view key,
                            std::vector<Digest>* out) {
  std::vector<Digest> digests;
  TP_RETURN_IF_ERROR(reader.ForEachElement(
      key, [&digests](const nlohmann::json& item, const std::string& path) -> absl::Status {
        TP_ASSIGN_OR_RETURN(Digest digest, DigestAt(item, path));
        digests.push_back(std::move(digest));
        return absl::OkStatus();
      }));
  if (reader.Find(key) != nullptr) *out = std::move(digests);
  return absl::OkStatus();
}

absl::StatusOr<Descriptor> DescriptorFromJson(const nlohmann::json& json, const std::string& path) {
  TP_ASSIGN_OR_RETURN(base::JsonObjectReader reader,
                      base::JsonObjectReader::Create(json, path, base::kPlainJson));
  Descriptor descriptor;
  TP_RETURN_IF_ERROR(reader.Require("mediaType"));
  TP_RETURN_IF_ERROR(reader.ReadString("mediaType", &descriptor.media_type));
  TP_RETURN_IF_ERROR(reader.Require("digest"));
  TP_RETURN_IF_ERROR(ReadDigest(reader, "digest", &descriptor.digest));
  TP_RETURN_IF_ERROR(reader.Require("size"));
  TP_RETURN_IF_ERROR(reader.ReadInt64("size", &descriptor.size));
  TP_RETURN_IF_ERROR(reader.ReadStringList("urls", &descriptor.urls));
  TP_RETURN_IF_ERROR(reader.ReadStringMap("annotations", &descriptor.annotations));
  if (reader.Find("data") != nullptr) {
    std::string data;
    TP_RETURN_IF_ERROR(reader.ReadString("data", &data));
    descriptor.data = std::move(data);
  }
  if (const nlohmann::json* platform = reader.Find("platform"); platform != nullptr) {
    TP_ASSIGN_OR_RETURN(descriptor.platform,
                        PlatformFromJson(*platform, reader.PathOf("platform")));
  }
  TP_RETURN_IF_ERROR(reader.ReadString("artifactType", &descriptor.artifact_type));
  return descriptor;
}

OrderedJson DescriptorToJson(const Descriptor& descriptor) {
  OrderedJson json = OrderedJson::object();
  json["mediaType"] = descriptor.media_type;
  json["digest"] = descriptor.digest.ToString();
  json["size"] = descriptor.size;
  PutStringList(json, "urls", descriptor.urls);
  PutStringMap(json, "annotations", descriptor.annotations);
  if (descriptor.data.has_value()) json["data"] = *descriptor.data;
  if (descriptor.platform.has_value()) json["platform"] = PlatformToJson(*descriptor.platform);
  PutString(json, "artifactType", descriptor.artifact_type);
  return json;
}

absl::StatusOr<Platform> PlatformFromJson(const nlohmann::json& json, const std::string& path) {
  TP_ASSIGN_OR_RETURN(base::JsonObjectReader reader,
                      base::JsonObjectReader::Create(json, path, base::kPlainJson));
  Platform platform;
  TP_RETURN_IF_ERROR(reader.ReadString("architecture", &platform.architecture));
  TP_RETURN_IF_ERROR(reader.ReadString("os", &platform.os));
  TP_RETURN_IF_ERROR(reader.ReadString("os.version", &platform.os_version));
  TP_RETURN_IF_ERROR(reader.ReadStringList("os.features", &platform.os_features));
  TP_RETURN_IF_ERROR(reader.ReadString("variant", &platform.variant));
  TP_RETURN_IF_ERROR(reader.ReadStringList("features", &platform.features));
  return platform;
}

OrderedJson PlatformToJson(const Platform& platform) {
  OrderedJson json = OrderedJson::object();
  json["architecture"] = platform.architecture;
  json["os"] = platform.os;
  PutString(json, "os.version", platform.os_version);
  PutStringList(json, "os.features", platform.os_features);
  PutString(json, "variant", platform.variant);
  PutStringList(json, "features", platform.features);
  return json;
}

absl::Status ReadDescriptorList(const base::JsonObjectReader& reader, std::string_view key,
                                std::vector<Descriptor>* out) {
  return reader.ForEachElement(
      key, [out](const nlohmann::json& item, const std::string& path) -> absl::Status {
        TP_ASSIGN_OR_RETURN(Descriptor descriptor, DescriptorFromJson(item, path));
        out->push_back(std::move(descriptor));
        return absl::OkStatus();
      });
}

OrderedJson DescriptorListToJson(const std::vector<Descriptor>& descriptors) {
  OrderedJson list = OrderedJson::array();
  for (const Descriptor& descriptor : descriptors) list.push_back(DescriptorToJson(descriptor));
  return list;
}

absl::Status ReadOptionalDescriptor(const base::JsonObjectReader& reader, std::string_view key,
                                    std::optional<Descriptor>* out) {
  const nlohmann::json* json = reader.Find(key);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, DescriptorFromJson(*json, std::string(key)));
  return absl::OkStatus();
}

absl::Status ReadSchemaVersion(const base::JsonObjectReader& reader, int* out) {
  int64_t schema_version = 0;
  TP_RETURN_IF_ERROR(reader.Require("schemaVersion"));
  TP_RETURN_IF_ERROR(reader.ReadInt64("schemaVersion", &schema_version));
  *out = static_cast<int>(schema_version);
  if (*out != schema_version) {
    return base::FieldError("schemaVersion", fmt::format("{} is out of range", schema_version));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::oci::internal
