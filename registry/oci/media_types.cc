#include "registry/oci/media_types.h"

#include <array>
#include <utility>

namespace trainpkg::oci {
namespace {

using namespace media_types;  // NOLINT(build/namespaces): constants of this file's header

constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kOciToDocker = {{
    {kOciImageIndex, kDockerManifestList},
    {kOciImageManifest, kDockerManifest},
    {kOciImageConfig, kDockerConfig},
    {kOciLayer, kDockerLayer},
    {kOciLayerGzip, kDockerLayerGzip},
    {kOciLayerNondistributableGzip, kDockerForeignLayerGzip},
}};

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string_view FamilyName(MediaTypeFamily family) {
  switch (family) {
    case MediaTypeFamily::kOci:
      return "OCI";
    case MediaTypeFamily::kDocker:
      return "Docker";
    case MediaTypeFamily::kOther:
      break;
  }
  return "other";
}

MediaTypeFamily FamilyOf(std::string_view media_type) {
  if (StartsWith(media_type, "application/vnd.oci.")) return MediaTypeFamily::kOci;
  if (StartsWith(media_type, "application/vnd.docker.")) return MediaTypeFamily::kDocker;
  return MediaTypeFamily::kOther;
}

bool IsIndexMediaType(std::string_view media_type) {
  return media_type == kOciImageIndex || media_type == kDockerManifestList;
}

bool IsManifestMediaType(std::string_view media_type) {
  return media_type == kOciImageManifest || media_type == kDockerManifest;
}

bool IsImageConfigMediaType(std::string_view media_type) {
  return media_type == kOciImageConfig || media_type == kDockerConfig;
}

bool IsLayerMediaType(std::string_view media_type) {
  return media_type == kOciLayer || media_type == kOciLayerGzip || media_type == kOciLayerZstd ||
         IsNondistributableLayerMediaType(media_type) || media_type == kDockerLayer ||
         media_type == kDockerLayerGzip;
}

bool IsNondistributableLayerMediaType(std::string_view media_type) {
  return media_type == kOciLayerNondistributable || media_type == kOciLayerNondistributableGzip ||
         media_type == kOciLayerNondistributableZstd || media_type == kDockerForeignLayerGzip;
}

std::string_view DockerEquivalent(std::string_view oci_media_type) {
  for (const auto& [oci, docker] : kOciToDocker) {
    if (oci == oci_media_type) return docker;
  }
  return {};
}

std::string_view OciEquivalent(std::string_view docker_media_type) {
  for (const auto& [oci, docker] : kOciToDocker) {
    if (docker == docker_media_type) return oci;
  }
  return {};
}

}  // namespace trainpkg::oci
