// Descriptor and platform <-> JSON, shared by manifests, indexes and configs.
#ifndef TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_
#define TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/json_object_reader.h"
#include "nlohmann/json.hpp"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/internal/canonical_json.h"
#include "registry/oci/platform.h"

namespace trainpkg::oci::internal {

// The digest under `key`, and each digest of the list under `key`;
// InvalidArgument "<path>: <Digest::Parse's message>" for one that does not
// parse. `*out` is unchanged when `key` is absent or null.
absl::Status ReadDigest(const base::JsonObjectReader& reader, std::string_view key, Digest* out);
absl::Status ReadDigestList(const base::JsonObjectReader& reader, std::string_view key,
                            std::vector<Digest>* out);

absl::StatusOr<Descriptor> DescriptorFromJson(const nlohmann::json& json, const std::string& path);
OrderedJson DescriptorToJson(const Descriptor& descriptor);

// The descriptor list under `key` (manifests' "layers", indexes' "manifests");
// an absent key leaves `out` empty.
absl::Status ReadDescriptorList(const base::JsonObjectReader& reader, std::string_view key,
                                std::vector<Descriptor>* out);
OrderedJson DescriptorListToJson(const std::vector<Descriptor>& descriptors);

// The descriptor under `key` when present ("subject"); nullopt when absent.
absl::Status ReadOptionalDescriptor(const base::JsonObjectReader& reader, std::string_view key,
                                    std::optional<Descriptor>* out);

// The required "schemaVersion" of manifests and indexes, range-checked into an int.
absl::Status ReadSchemaVersion(const base::JsonObjectReader& reader, int* out);

absl::StatusOr<Platform> PlatformFromJson(const nlohmann::json& json, const std::string& path);
OrderedJson PlatformToJson(const Platform& platform);

}  // namespace trainpkg::oci::internal

#endif  // TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_
