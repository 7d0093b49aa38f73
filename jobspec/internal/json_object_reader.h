// Reading proto3-JSON objects field by field with the JSON path of every
// value at hand, so each error starts with where it is:
//   "jobSpec.workerPoolSpecs[1].replicaCount: expected an integer ..., got true"
// Fields may be named in lowerCamelCase or in the proto's snake_case.
#ifndef TRAINPKG_JOBSPEC_INTERNAL_JSON_OBJECT_READER_H_
#define TRAINPKG_JOBSPEC_INTERNAL_JSON_OBJECT_READER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/internal/proto_enums.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec::internal {

// "parent.field", or "field" when `parent` is empty.
std::string FieldPath(std::string_view parent, std::string_view field);
// "parent[index]".
std::string IndexPath(std::string_view parent, size_t index);
// InvalidArgument "<path>: <message>" ("(top level)" for the empty path).
absl::Status FieldError(std::string_view path, std::string_view message);

// Single JSON values; `path` names the value in errors.
absl::StatusOr<std::string> StringValue(const nlohmann::json& json, std::string_view path);
absl::StatusOr<int64_t> Int64Value(const nlohmann::json& json, std::string_view path);
absl::StatusOr<int32_t> Int32Value(const nlohmann::json& json, std::string_view path);
// An enum by name or number; the unspecified value (either form) reads as "".
// Names trainpkg does not know are kept, so newer server values survive.
absl::StatusOr<std::string> EnumValue(const nlohmann::json& json, std::string_view path,
                                      const ProtoEnum& proto_enum);

// The fields of one proto message, by their JSON (lowerCamelCase) names.
struct MessageFields {
  std::vector<std::string_view> known;
  // Output-only fields trainpkg does not model: accepted and dropped.
  std::vector<std::string_view> ignored = {};
  // Vertex AI fields trainpkg cannot carry: rejected, saying so.
  std::vector<std::string_view> unsupported = {};
};

// One JSON object of a known message. Holds pointers into the json passed to
// Create, which must outlive the reader.
class JsonObjectReader {
 public:
  // InvalidArgument unless `json` is an object whose every key is a known (or
  // ignored) field of `fields`, each named once in either spelling. Unknown
  // keys get a "did you mean" suggestion when a known field is close.
  static absl::StatusOr<JsonObjectReader> Create(const nlohmann::json& json, std::string path,
                                                 const MessageFields& fields);

  const std::string& path() const { return path_; }
  std::string PathOf(std::string_view name) const { return FieldPath(path_, name); }

  // The value of field `name` (lowerCamelCase), or nullptr when absent or
  // null (proto3 JSON: null means the default value).
  const nlohmann::json* Find(std::string_view name) const;

  // Each Read* leaves `*out` unchanged when the field is absent or null.
  absl::Status ReadString(std::string_view name, std::string* out) const;
  absl::Status ReadBool(std::string_view name, bool* out) const;
  absl::Status ReadInt32(std::string_view name, int32_t* out) const;
  absl::Status ReadInt64(std::string_view name, int64_t* out) const;
  absl::Status ReadEnum(std::string_view name, const ProtoEnum& proto_enum, std::string* out) const;
  absl::Status ReadStringList(std::string_view name, std::vector<std::string>* out) const;
  absl::Status ReadStringMap(std::string_view name, std::map<std::string, std::string>* out) const;
  absl::Status ReadDuration(std::string_view name, std::optional<absl::Duration>* out) const;
  absl::Status ReadTimestamp(std::string_view name, std::optional<absl::Time>* out) const;

  // A list of messages: calls `read_element(element_json, element_path)` for
  // each element, in order.
  absl::Status ForEachElement(
      std::string_view name,
      const std::function<absl::Status(const nlohmann::json&, const std::string&)>& read_element)
      const;

 private:
  explicit JsonObjectReader(std::string path) : path_(std::move(path)) {}

  std::string path_;
  std::map<std::string, const nlohmann::json*, std::less<>> values_;
};

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_JSON_OBJECT_READER_H_
