#include "jobspec/internal/vertex_json.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"

namespace trainpkg::jobspec::internal {

absl::Status UnknownEnumNumber(std::string_view path, const ProtoEnum& proto_enum, int64_t number) {
  std::vector<std::string> valid;
  for (const ProtoEnumValue& value : proto_enum.values) {
    valid.push_back(fmt::format("{} ({})", value.number, value.name));
  }
  return kVertexJson.Error(path, fmt::format("unknown {} number {}; valid numbers: {}",
                                             proto_enum.type_name, number, fmt::join(valid, ", ")));
}

absl::StatusOr<std::string> EnumValue(const nlohmann::json& json, std::string_view path,
                                      const ProtoEnum& proto_enum) {
  if (json.is_string()) {
    std::string name = json.get<std::string>();
    // The *_UNSPECIFIED value is proto3's default: the same as leaving the
    // field out.
    if (name == proto_enum.unspecified_name()) return std::string();
    return name;
  }
  if (json.is_number_integer()) {
    TP_ASSIGN_OR_RETURN(int64_t number, base::JsonInt64(json, path, kVertexJson));
    std::optional<std::string_view> name;
    if (number >= 0 && number <= std::numeric_limits<int>::max()) {
      name = proto_enum.NameOf(static_cast<int>(number));
    }
    if (!name.has_value()) return UnknownEnumNumber(path, proto_enum, number);
    if (*name == proto_enum.unspecified_name()) return std::string();
    return std::string(*name);
  }
  return kVertexJson.Error(path,
                           fmt::format("expected an enum value of {} (name or number), got {}",
                                       proto_enum.type_name, base::DescribeJson(json)));
}

absl::Status ReadEnum(const base::JsonObjectReader& reader, std::string_view name,
                      const ProtoEnum& proto_enum, std::string* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, EnumValue(*json, reader.PathOf(name), proto_enum));
  return absl::OkStatus();
}

absl::Status ReadDuration(const base::JsonObjectReader& reader, std::string_view name,
                          std::optional<absl::Duration>* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  if (!json->is_string()) {
    return reader.ErrorAt(name, fmt::format("expected a duration string such as \"3600s\", got {}",
                                            base::DescribeJson(*json)));
  }
  absl::StatusOr<absl::Duration> value = ParseDuration(json->get_ref<const std::string&>());
  if (!value.ok()) return reader.ErrorAt(name, std::string(value.status().message()));
  *out = *value;
  return absl::OkStatus();
}

absl::Status ReadTimestamp(const base::JsonObjectReader& reader, std::string_view name,
                           std::optional<absl::Time>* out) {
  const nlohmann::json* json = reader.Find(name);
  if (json == nullptr) return absl::OkStatus();
  if (!json->is_string()) {
    return reader.ErrorAt(name, fmt::format("expected an RFC 3339 timestamp string, got {}",
                                            base::DescribeJson(*json)));
  }
  absl::StatusOr<absl::Time> value = ParseTimestamp(json->get_ref<const std::string&>());
  if (!value.ok()) return reader.ErrorAt(name, std::string(value.status().message()));
  *out = *value;
  return absl::OkStatus();
}

}  // namespace trainpkg::jobspec::internal
