// OCI image-spec v1.1 and Docker schema2 media types, and how they relate.
// The two families are never mixed within one manifest or index (see
// ValidateImageManifest); FamilyOf tells which family a type belongs to.
#ifndef TRAINPKG_REGISTRY_OCI_MEDIA_TYPES_H_
#define TRAINPKG_REGISTRY_OCI_MEDIA_TYPES_H_

#include <string_view>

namespace trainpkg::oci {

namespace media_types {
// OCI image-spec v1.1.
inline constexpr std::string_view kOciImageIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kOciImageManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kOciImageConfig = "application/vnd.oci.image.config.v1+json";
inline constexpr std::string_view kOciLayer = "application/vnd.oci.image.layer.v1.tar";
inline constexpr std::string_view kOciLayerGzip = "application/vnd.oci.image.layer.v1.tar+gzip";
inline constexpr std::string_view kOciLayerZstd = "application/vnd.oci.image.layer.v1.tar+zstd";
inline constexpr std::string_view kOciLayerNondistributable =
    "application/vnd.oci.image.layer.nondistributable.v1.tar";
inline constexpr std::string_view kOciLayerNondistributableGzip =
    "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip";
inline constexpr std::string_view kOciLayerNondistributableZstd =
    "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd";
// The empty descriptor's type (blob "{}"), for artifacts without a config.
inline constexpr std::string_view kOciEmpty = "application/vnd.oci.empty.v1+json";
inline constexpr std::string_view kOciLayoutHeader = "application/vnd.oci.layout.header.v1+json";

// Docker image manifest v2 schema 2.
inline constexpr std::string_view kDockerManifestList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kDockerManifest =
    "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr std::string_view kDockerConfig = "application/vnd.docker.container.image.v1+json";
inline constexpr std::string_view kDockerLayer = "application/vnd.docker.image.rootfs.diff.tar";
inline constexpr std::string_view kDockerLayerGzip =
    "application/vnd.docker.image.rootfs.diff.tar.gzip";
inline constexpr std::string_view kDockerForeignLayerGzip =
    "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip";
}  // namespace media_types

enum class MediaTypeFamily {
  kOther,   // neither family (artifact types, custom configs)
  kOci,     // application/vnd.oci.*
  kDocker,  // application/vnd.docker.*
};

// "OCI", "Docker" or "other", for messages.
std::string_view FamilyName(MediaTypeFamily family);
MediaTypeFamily FamilyOf(std::string_view media_type);

// An image index or a Docker manifest list.
bool IsIndexMediaType(std::string_view media_type);
// An OCI image manifest or a Docker schema2 manifest.
bool IsManifestMediaType(std::string_view media_type);
// An OCI image config or a Docker container config.
bool IsImageConfigMediaType(std::string_view media_type);
// Any layer type above, compressed or not, distributable or not.
bool IsLayerMediaType(std::string_view media_type);
// Layers that registries must not receive (nondistributable / foreign).
bool IsNondistributableLayerMediaType(std::string_view media_type);

// The Docker type for an OCI one and back (index <-> manifest list, manifest,
// config, tar, tar+gzip, nondistributable tar+gzip <-> foreign). Empty when
// the other family has no equivalent (zstd layers, artifact types).
std::string_view DockerEquivalent(std::string_view oci_media_type);
std::string_view OciEquivalent(std::string_view docker_media_type);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_MEDIA_TYPES_H_
