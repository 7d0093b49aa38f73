// Descriptor and platform <-> JSON, shared by manifests, indexes and configs.
#ifndef TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_
#define TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "registry/oci/descriptor.h"
#include "registry/oci/internal/canonical_json.h"
#include "registry/oci/internal/json_reader.h"
#include "registry/oci/platform.h"

namespace trainpkg::oci::internal {

absl::StatusOr<Descriptor> DescriptorFromJson(const nlohmann::json& json, const std::string& path);
OrderedJson DescriptorToJson(const Descriptor& descriptor);

// The descriptor list under `key` (manifests' "layers", indexes' "manifests");
// an absent key leaves `out` empty.
absl::Status ReadDescriptorList(const ObjectReader& reader, std::string_view key,
                                std::vector<Descriptor>* out);
OrderedJson DescriptorListToJson(const std::vector<Descriptor>& descriptors);

// The descriptor under `key` when present ("subject"); nullopt when absent.
absl::Status ReadOptionalDescriptor(const ObjectReader& reader, std::string_view key,
                                    std::optional<Descriptor>* out);

// The required "schemaVersion" of manifests and indexes, range-checked into an int.
absl::Status ReadSchemaVersion(const ObjectReader& reader, int* out);

absl::StatusOr<Platform> PlatformFromJson(const nlohmann::json& json, const std::string& path);
OrderedJson PlatformToJson(const Platform& platform);

}  // namespace trainpkg::oci::internal

#endif  // TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_
