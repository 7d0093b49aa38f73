#include "registry/oci/image_config.h"

#include <algorithm>
#include <utility>

#include "base/json_object_reader.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/annotations.h"
#include "registry/oci/internal/canonical_json.h"
#include "registry/oci/internal/descriptor_json.h"

namespace trainpkg::oci {
namespace {

using base::FieldError;
using base::FieldPath;
using base::IndexPath;
using base::JsonObjectReader;
using internal::OrderedJson;

absl::StatusOr<ContainerConfig> ContainerConfigFromJson(const nlohmann::json& json,
                                                        const std::string& path) {
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(json, path, base::kPlainJson));
  ContainerConfig config;
  TP_RETURN_IF_ERROR(reader.ReadString("User", &config.user));
  TP_RETURN_IF_ERROR(reader.ReadKeySet("ExposedPorts", &config.exposed_ports));
  TP_RETURN_IF_ERROR(reader.ReadStringList("Env", &config.env));
  TP_RETURN_IF_ERROR(reader.ReadStringList("Entrypoint", &config.entrypoint));
  TP_RETURN_IF_ERROR(reader.ReadStringList("Cmd", &config.cmd));
  TP_RETURN_IF_ERROR(reader.ReadKeySet("Volumes", &config.volumes));
  TP_RETURN_IF_ERROR(reader.ReadString("WorkingDir", &config.working_dir));
  TP_RETURN_IF_ERROR(reader.ReadStringMap("Labels", &config.labels));
  TP_RETURN_IF_ERROR(reader.ReadString("StopSignal", &config.stop_signal));
  config.unknown_fields = reader.Unknown({"User", "ExposedPorts", "Env", "Entrypoint", "Cmd",
                                          "Volumes", "WorkingDir", "Labels", "StopSignal"});
  return config;
}

absl::StatusOr<HistoryEntry> HistoryFromJson(const nlohmann::json& json, const std::string& path) {
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(json, path, base::kPlainJson));
  HistoryEntry entry;
  TP_RETURN_IF_ERROR(reader.ReadString("created", &entry.created));
  TP_RETURN_IF_ERROR(reader.ReadString("created_by", &entry.created_by));
  TP_RETURN_IF_ERROR(reader.ReadString("author", &entry.author));
  TP_RETURN_IF_ERROR(reader.ReadString("comment", &entry.comment));
  TP_RETURN_IF_ERROR(reader.ReadBool("empty_layer", &entry.empty_layer));
  return entry;
}

absl::StatusOr<ImageConfig> ImageConfigFromJson(const nlohmann::json& json) {
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(json, "", base::kPlainJson));
  ImageConfig config;
  TP_RETURN_IF_ERROR(reader.ReadString("created", &config.created));
  TP_RETURN_IF_ERROR(reader.ReadString("author", &config.author));
  TP_RETURN_IF_ERROR(reader.ReadString("architecture", &config.architecture));
  TP_RETURN_IF_ERROR(reader.ReadString("os", &config.os));
  TP_RETURN_IF_ERROR(reader.ReadString("os.version", &config.os_version));
  TP_RETURN_IF_ERROR(reader.ReadStringList("os.features", &config.os_features));
  TP_RETURN_IF_ERROR(reader.ReadString("variant", &config.variant));
  if (const nlohmann::json* container = reader.Find("config"); container != nullptr) {
    TP_ASSIGN_OR_RETURN(config.config, ContainerConfigFromJson(*container, "config"));
  }
  TP_RETURN_IF_ERROR(reader.Require("rootfs"));
  TP_ASSIGN_OR_RETURN(JsonObjectReader rootfs,
                      JsonObjectReader::Create(*reader.Find("rootfs"), "rootfs", base::kPlainJson));
  TP_RETURN_IF_ERROR(rootfs.Require("type"));
  TP_RETURN_IF_ERROR(rootfs.ReadString("type", &config.rootfs.type));
  TP_RETURN_IF_ERROR(internal::ReadDigestList(rootfs, "diff_ids", &config.rootfs.diff_ids));
  TP_RETURN_IF_ERROR(reader.ForEachElement(
      "history", [&config](const nlohmann::json& item, const std::string& path) -> absl::Status {
        TP_ASSIGN_OR_RETURN(HistoryEntry entry, HistoryFromJson(item, path));
        config.history.push_back(std::move(entry));
        return absl::OkStatus();
      }));
  config.unknown_fields = reader.Unknown({"created", "author", "architecture", "os", "os.version",
                                          "os.features", "variant", "config", "rootfs", "history"});
  return config;
}

OrderedJson ContainerConfigToJson(const ContainerConfig& config) {
  OrderedJson json = OrderedJson::object();
  internal::PutString(json, "User", config.user);
  internal::PutKeySet(json, "ExposedPorts", config.exposed_ports);
  internal::PutStringList(json, "Env", config.env);
  internal::PutStringList(json, "Entrypoint", config.entrypoint);
  internal::PutStringList(json, "Cmd", config.cmd);
  internal::PutKeySet(json, "Volumes", config.volumes);
  internal::PutString(json, "WorkingDir", config.working_dir);
  internal::PutStringMap(json, "Labels", config.labels);
  internal::PutString(json, "StopSignal", config.stop_signal);
  internal::PutUnknown(json, config.unknown_fields);
  return json;
}

OrderedJson HistoryToJson(const HistoryEntry& entry) {
  OrderedJson json = OrderedJson::object();
  internal::PutString(json, "created", entry.created);
  internal::PutString(json, "created_by", entry.created_by);
  internal::PutString(json, "author", entry.author);
  internal::PutString(json, "comment", entry.comment);
  if (entry.empty_layer) json["empty_layer"] = true;
  return json;
}

absl::Status CheckTime(const std::string& value, const std::string& path) {
  if (value.empty()) return absl::OkStatus();
  absl::StatusOr<absl::Time> time = ParseRfc3339(value);
  if (!time.ok()) return FieldError(path, std::string(time.status().message()));
  return absl::OkStatus();
}

// "80", "80/tcp", "53/udp", "9/sctp" with a port in 1..65535.
bool IsPortSpec(std::string_view spec) {
  size_t slash = spec.find('/');
  std::string_view port = spec.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view proto = spec.substr(slash + 1);
    if (proto != "tcp" && proto != "udp" && proto != "sctp") return false;
  }
  if (port.empty() || port.size() > 5) return false;
  int value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return value >= 1 && value <= 65535;
}

}  // namespace

absl::StatusOr<ImageConfig> ParseImageConfig(std::string_view json) {
  absl::StatusOr<nlohmann::json> parsed = base::ParseJson(json);
  absl::StatusOr<ImageConfig> config =
      parsed.ok() ? ImageConfigFromJson(*parsed) : absl::StatusOr<ImageConfig>(parsed.status());
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("image config: {}", std::string(config.status().message())));
  }
  return config;
}

std::string SerializeImageConfig(const ImageConfig& config) {
  OrderedJson json = OrderedJson::object();
  internal::PutString(json, "created", config.created);
  internal::PutString(json, "author", config.author);
  json["architecture"] = config.architecture;
  json["os"] = config.os;
  internal::PutString(json, "os.version", config.os_version);
  internal::PutStringList(json, "os.features", config.os_features);
  internal::PutString(json, "variant", config.variant);
  json["config"] = ContainerConfigToJson(config.config);
  OrderedJson rootfs = OrderedJson::object();
  rootfs["type"] = config.rootfs.type;
  rootfs["diff_ids"] = internal::DigestList(config.rootfs.diff_ids);
  json["rootfs"] = std::move(rootfs);
  if (!config.history.empty()) {
    OrderedJson history = OrderedJson::array();
    for (const HistoryEntry& entry : config.history) history.push_back(HistoryToJson(entry));
    json["history"] = std::move(history);
  }
  internal::PutUnknown(json, config.unknown_fields);
  return internal::CanonicalDump(json);
}

absl::Status ValidateImageConfig(const ImageConfig& config) {
  if (config.architecture.empty()) return FieldError("architecture", "required field is missing");
  if (config.os.empty()) return FieldError("os", "required field is missing");
  if (config.rootfs.type != "layers") {
    return FieldError("rootfs.type",
                      fmt::format("must be \"layers\", got \"{}\"", config.rootfs.type));
  }
  for (size_t i = 0; i < config.rootfs.diff_ids.size(); ++i) {
    if (config.rootfs.diff_ids[i].empty()) {
      return FieldError(IndexPath("rootfs.diff_ids", i), "empty digest");
    }
  }
  TP_RETURN_IF_ERROR(CheckTime(config.created, "created"));
  for (const std::string& port : config.config.exposed_ports) {
    if (!IsPortSpec(port)) {
      return FieldError(FieldPath("config.ExposedPorts", port),
                        "expected port[/tcp|/udp|/sctp] with a port in 1..65535");
    }
  }
  for (size_t i = 0; i < config.config.env.size(); ++i) {
    size_t equals = config.config.env[i].find('=');
    if (equals == std::string::npos || equals == 0) {
      return FieldError(IndexPath("config.Env", i),
                        fmt::format("expected NAME=value, got \"{}\"", config.config.env[i]));
    }
  }
  size_t layer_entries = 0;
  for (size_t i = 0; i < config.history.size(); ++i) {
    TP_RETURN_IF_ERROR(
        CheckTime(config.history[i].created, FieldPath(IndexPath("history", i), "created")));
    if (!config.history[i].empty_layer) ++layer_entries;
  }
  if (!config.history.empty() && layer_entries != config.rootfs.diff_ids.size()) {
    return FieldError("history", fmt::format("{} entries made a layer (empty_layer not true) but "
                                             "rootfs.diff_ids has {}",
                                             layer_entries, config.rootfs.diff_ids.size()));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::oci
