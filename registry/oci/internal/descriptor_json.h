// Descriptor and platform <-> JSON, shared by manifests, indexes and configs.
#ifndef TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_
#define TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "registry/oci/descriptor.h"
#include "registry/oci/internal/canonical_json.h"
#include "registry/oci/platform.h"

namespace trainpkg::oci::internal {

absl::StatusOr<Descriptor> DescriptorFromJson(const nlohmann::json& json, const std::string& path);
OrderedJson DescriptorToJson(const Descriptor& descriptor);

absl::StatusOr<Platform> PlatformFromJson(const nlohmann::json& json, const std::string& path);
OrderedJson PlatformToJson(const Platform& platform);

}  // namespace trainpkg::oci::internal

#endif  // TRAINPKG_REGISTRY_OCI_INTERNAL_DESCRIPTOR_JSON_H_
