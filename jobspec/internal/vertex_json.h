// Reading Vertex AI REST documents: base::JsonObjectReader in the proto3 JSON
// dialect, and the proto3 values base does not know (enums, durations,
// timestamps). Every error starts with the JSON path of the value:
//   "jobSpec.scheduling.timeout: expected a duration string such as \"3600s\", got ..."
#ifndef TRAINPKG_JOBSPEC_INTERNAL_VERTEX_JSON_H_
#define TRAINPKG_JOBSPEC_INTERNAL_VERTEX_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/json_object_reader.h"
#include "jobspec/internal/proto_enums.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec::internal {

// proto3 JSON; a field Vertex AI has and trainpkg cannot carry is rejected
// as "this Vertex AI field is not supported by trainpkg; remove it".
inline constexpr base::JsonDialect kVertexJson = base::kProto3Json.WithUnsupportedField(
    "this Vertex AI field is not supported by trainpkg; remove it");

// InvalidArgument "<path>: unknown <type> number <number>; valid numbers: 0
// (NAME), ...".
absl::Status UnknownEnumNumber(std::string_view path, const ProtoEnum& proto_enum, int64_t number);

// An enum by name or number; the unspecified value (either form) reads as "".
// Names trainpkg does not know are kept, so newer server values survive.
absl::StatusOr<std::string> EnumValue(const nlohmann::json& json, std::string_view path,
                                      const ProtoEnum& proto_enum);

// Field readers in the base::JsonObjectReader style: `*out` is unchanged when
// the field is absent or null.
absl::Status ReadEnum(const base::JsonObjectReader& reader, std::string_view name,
                      const ProtoEnum& proto_enum, std::string* out);
absl::Status ReadDuration(const base::JsonObjectReader& reader, std::string_view name,
                          std::optional<absl::Duration>* out);
absl::Status ReadTimestamp(const base::JsonObjectReader& reader, std::string_view name,
                           std::optional<absl::Time>* out);

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_VERTEX_JSON_H_
