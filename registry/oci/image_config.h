// An image config: OCI application/vnd.oci.image.config.v1+json, which is
// also Docker's application/vnd.docker.container.image.v1+json (config.md).
//
// Fields the model does not name (Docker's container_config, docker_version,
// config.Healthcheck, config.Shell, config.ArgsEscaped, ...) are kept as read
// in `unknown_fields` and written back after the known ones, so a base
// image's config survives a parse / modify / serialize round trip.
// Value type; thread-compatible.
#ifndef TRAINPKG_REGISTRY_OCI_IMAGE_CONFIG_H_
#define TRAINPKG_REGISTRY_OCI_IMAGE_CONFIG_H_

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/digest.h"

namespace trainpkg::oci {

// Field name -> the field's value as compact JSON text.
using UnknownFields = std::map<std::string, std::string>;

// "config": how to run a container of the image.
struct ContainerConfig {
  std::string user{};                           // "User": user, uid, user:group, uid:gid, ...
  std::set<std::string> exposed_ports{};        // "ExposedPorts": "80/tcp", "53/udp", "8080"
  std::vector<std::string> env{};               // "Env": "NAME=value"
  std::vector<std::string> entrypoint{};        // "Entrypoint"
  std::vector<std::string> cmd{};               // "Cmd"
  std::set<std::string> volumes{};              // "Volumes"
  std::string working_dir{};                    // "WorkingDir"
  std::map<std::string, std::string> labels{};  // "Labels"
  std::string stop_signal{};                    // "StopSignal"
  UnknownFields unknown_fields{};

  friend bool operator==(const ContainerConfig&, const ContainerConfig&) = default;
};

struct RootFs {
  std::string type = "layers";     // "type": must be "layers"
  std::vector<Digest> diff_ids{};  // "diff_ids": digests of the uncompressed layer tars, base first

  friend bool operator==(const RootFs&, const RootFs&) = default;
};

struct HistoryEntry {
  std::string created{};     // "created", RFC 3339
  std::string created_by{};  // "created_by"
  std::string author{};      // "author"
  std::string comment{};     // "comment"
  bool empty_layer = false;  // "empty_layer": true when the step made no layer

  friend bool operator==(const HistoryEntry&, const HistoryEntry&) = default;
};

struct ImageConfig {
  std::string created{};                   // "created", RFC 3339
  std::string author{};                    // "author"
  std::string architecture{};              // "architecture", required
  std::string os{};                        // "os", required
  std::string os_version{};                // "os.version"
  std::vector<std::string> os_features{};  // "os.features"
  std::string variant{};                   // "variant"
  ContainerConfig config{};                // "config"
  RootFs rootfs{};                         // "rootfs", required
  std::vector<HistoryEntry> history{};     // "history"
  UnknownFields unknown_fields{};

  friend bool operator==(const ImageConfig&, const ImageConfig&) = default;
};

// InvalidArgument naming the JSON path ("config.Env[2]: expected a string").
absl::StatusOr<ImageConfig> ParseImageConfig(std::string_view json);
// Canonical bytes; "config" and "rootfs" always present, empty optionals
// omitted. Sha256 of these bytes is the image ID.
std::string SerializeImageConfig(const ImageConfig& config);

// config.md rules: architecture and os set; rootfs.type "layers"; created
// (top level and history) RFC 3339 when set; history entries that made a
// layer (empty_layer false) as many as diff_ids when history is present;
// ExposedPorts of the form port[/tcp|/udp|/sctp]; Env entries NAME=value.
absl::Status ValidateImageConfig(const ImageConfig& config);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_IMAGE_CONFIG_H_
