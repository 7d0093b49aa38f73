// Reading a JSON object field by field with the path of every value at hand,
// so each error starts with where it is:
//   "layers[1].digest: expected a string, got 5"
//   "jobSpec.workerPoolSpecs[1].replicaCount: expected an integer ..., got the boolean true"
// JSON null reads as absent (proto3 JSON: the default value; OCI: optional
// fields may be null). A reader is open (keys it does not read are kept
// aside, Unknown()) or closed to a set of fields (any other key is an error
// with a did-you-mean). A JsonDialect says which values the typed reads
// accept and how their errors word things.
#ifndef TRAINPKG_BASE_JSON_OBJECT_READER_H_
#define TRAINPKG_BASE_JSON_OBJECT_READER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace trainpkg::base {

// "parent.field", or "field" when `parent` is empty.
std::string FieldPath(std::string_view parent, std::string_view field);
// "parent[index]".
std::string IndexPath(std::string_view parent, size_t index);
// InvalidArgument "<path>: <message>"; just "<message>" for the empty path.
absl::Status FieldError(std::string_view path, std::string_view message);

// The conventions of one family of JSON documents.
struct JsonDialect {
  // The proto3 JSON mapping: an integer may also be a string of digits or an
  // integral number ("5", 5.0), and a field may be named in the proto's
  // snake_case as well as in lowerCamelCase.
  bool proto3 = false;
  // What errors call the empty path; empty: the message stands alone.
  std::string_view top_level = {};
  // Errors show a value with its type ("the number 5") rather than only as
  // JSON text ("5"), and suggest quoting a number or boolean given where a
  // string belongs.
  bool name_value_types = false;
  // What errors call the values the typed reads expect.
  std::string_view an_integer = {};      // "expected an integer, got ..."
  std::string_view an_array = {};        // ForEachElement
  std::string_view a_string_array = {};  // ReadStringList
  std::string_view a_string_map = {};    // ReadStringMap
  // Follows the value of an integer that does not fit in int64.
  std::string_view beyond_int64 = {};
  // The error for a field that JsonFields::unsupported names.
  std::string_view unsupported_field = "this field is not supported; remove it";

  // InvalidArgument "<path>: <message>"; for the empty path
  // "<top_level>: <message>", or just "<message>" without a top_level.
  absl::Status Error(std::string_view path, std::string_view message) const;
  // `value` as "got <this>" shows it: bounded, never the whole value.
  std::string Describe(const nlohmann::json& value) const;
  // This dialect with another unsupported_field message.
  constexpr JsonDialect WithUnsupportedField(std::string_view message) const {
    JsonDialect dialect = *this;
    dialect.unsupported_field = message;
    return dialect;
  }
};

// Plain JSON (OCI image-spec, Docker): an integer is a JSON integer; errors
// show values as JSON text: `config.size: expected an integer, got "6"`.
inline constexpr JsonDialect kPlainJson{.an_integer = "an integer",
                                        .an_array = "an array",
                                        .a_string_array = "an array",
                                        .a_string_map = "an object of strings",
                                        .beyond_int64 = " does not fit in int64"};

// The proto3 JSON mapping (Vertex AI REST): see JsonDialect::proto3; errors
// name value types: `name: expected a string, got the number 5 (quote it: "5")`.
inline constexpr JsonDialect kProto3Json{.proto3 = true,
                                         .top_level = "(top level)",
                                         .name_value_types = true,
                                         .an_integer = "an integer (number or string of digits)",
                                         .an_array = "a list",
                                         .a_string_array = "a list of strings",
                                         .a_string_map = "an object of string values",
                                         .beyond_int64 = " is out of range for a 64-bit integer"};

// Single values; `path` names the value in errors.
absl::StatusOr<std::string> JsonString(const nlohmann::json& json, std::string_view path,
                                       const JsonDialect& dialect);
absl::StatusOr<int64_t> JsonInt64(const nlohmann::json& json, std::string_view path,
                                  const JsonDialect& dialect);
absl::StatusOr<int32_t> JsonInt32(const nlohmann::json& json, std::string_view path,
                                  const JsonDialect& dialect);

// The fields of a closed object, by their JSON names (lowerCamelCase in
// proto3 JSON, which also accepts their snake_case spelling).
struct JsonFields {
  std::vector<std::string_view> known;
  // Fields the reader does not model (output-only ones): accepted and dropped.
  std::vector<std::string_view> ignored = {};
  // Fields the reader cannot carry: rejected with the dialect's
  // unsupported_field message.
  std::vector<std::string_view> unsupported = {};
};

// One JSON object. Holds pointers into the json given to Create, which must
// outlive the reader.
class JsonObjectReader {
 public:
  // An open reader. InvalidArgument unless `json` is an object.
  static absl::StatusOr<JsonObjectReader> Create(const nlohmann::json& json, std::string path,
                                                 const JsonDialect& dialect);
  // A closed reader. InvalidArgument unless `json` is an object whose every
  // key is a known (or ignored) field of `fields`, each named once in either
  // spelling. An unknown key gets a "did you mean" suggestion when a known
  // field is close, else the list of valid fields.
  static absl::StatusOr<JsonObjectReader> Create(const nlohmann::json& json, std::string path,
                                                 const JsonDialect& dialect,
                                                 const JsonFields& fields);

  const std::string& path() const { return path_; }
  const JsonDialect& dialect() const { return *dialect_; }
  std::string PathOf(std::string_view name) const { return FieldPath(path_, name); }
  // The dialect's error for field `name`.
  absl::Status ErrorAt(std::string_view name, std::string_view message) const {
    return dialect_->Error(PathOf(name), message);
  }

  // The value of field `name` (a closed reader's canonical name), or nullptr
  // when absent or null.
  const nlohmann::json* Find(std::string_view name) const;
  // InvalidArgument "<path>.<name>: required field is missing" when absent.
  absl::Status Require(std::string_view name) const;

  // Each Read* leaves `*out` unchanged when the field is absent or null.
  absl::Status ReadString(std::string_view name, std::string* out) const;
  absl::Status ReadBool(std::string_view name, bool* out) const;
  absl::Status ReadInt32(std::string_view name, int32_t* out) const;
  absl::Status ReadInt64(std::string_view name, int64_t* out) const;
  absl::Status ReadStringList(std::string_view name, std::vector<std::string>* out) const;
  absl::Status ReadStringMap(std::string_view name, std::map<std::string, std::string>* out) const;
  // An object used as a set (OCI's ExposedPorts, Volumes: values are {}): its keys.
  absl::Status ReadKeySet(std::string_view name, std::set<std::string>* out) const;

  // A list: calls `read_element(element_json, element_path)` for each
  // element, in order, and stops at the first error.
  absl::Status ForEachElement(
      std::string_view name,
      const std::function<absl::Status(const nlohmann::json&, const std::string&)>& read_element)
      const;

  // The object's keys not in `known`, each with its value as compact JSON text.
  std::map<std::string, std::string> Unknown(std::initializer_list<std::string_view> known) const;

 private:
  JsonObjectReader(const nlohmann::json* json, std::string path, const JsonDialect* dialect)
      : json_(json), path_(std::move(path)), dialect_(dialect) {}

  const nlohmann::json* json_;
  std::string path_;
  const JsonDialect* dialect_;
  // Field name -> value, without nulls.
  std::map<std::string, const nlohmann::json*, std::less<>> values_;
};

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_JSON_OBJECT_READER_H_
