// Reading OCI JSON with the path of every value at hand, so each error says
// where it is: "layers[1].digest: invalid digest ...". JSON null reads as
// absent (image-spec: optional fields may be null). Unknown keys are kept
// aside (Unknown) rather than rejected: the spec says they MUST be ignored.
#ifndef TRAINPKG_REGISTRY_OCI_INTERNAL_JSON_READER_H_
#define TRAINPKG_REGISTRY_OCI_INTERNAL_JSON_READER_H_

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
#include "registry/oci/digest.h"

namespace trainpkg::oci::internal {

// "parent.field" ("field" at the top); "parent[i]".
std::string FieldPath(std::string_view parent, std::string_view field);
std::string IndexPath(std::string_view parent, size_t index);
// InvalidArgument "<path>: <message>" (just "<message>" for the empty path).
absl::Status PathError(std::string_view path, std::string_view message);

// Parses `text`; InvalidArgument "invalid JSON: <parser message>" otherwise.
absl::StatusOr<nlohmann::json> ParseJsonText(std::string_view text);

// One JSON object. Holds a pointer into the json given to Create, which must
// outlive the reader.
class ObjectReader {
 public:
  // InvalidArgument unless `json` is an object.
  static absl::StatusOr<ObjectReader> Create(const nlohmann::json& json, std::string path);

  const std::string& path() const { return path_; }
  std::string PathOf(std::string_view key) const { return FieldPath(path_, key); }
  // The value of `key`, or nullptr when absent or null.
  const nlohmann::json* Find(std::string_view key) const;
  // InvalidArgument "<path>.<key>: required field is missing" when absent.
  absl::Status Require(std::string_view key) const;

  // Each Read* leaves `*out` unchanged when the key is absent or null.
  absl::Status ReadString(std::string_view key, std::string* out) const;
  absl::Status ReadInt64(std::string_view key, int64_t* out) const;
  absl::Status ReadBool(std::string_view key, bool* out) const;
  absl::Status ReadStringList(std::string_view key, std::vector<std::string>* out) const;
  absl::Status ReadStringMap(std::string_view key, std::map<std::string, std::string>* out) const;
  // An object used as a set (ExposedPorts, Volumes: values are {}): its keys.
  absl::Status ReadKeySet(std::string_view key, std::set<std::string>* out) const;
  absl::Status ReadDigest(std::string_view key, Digest* out) const;
  absl::Status ReadDigestList(std::string_view key, std::vector<Digest>* out) const;
  // Calls `read(element, element_path)` for each element of an array.
  absl::Status ForEach(
      std::string_view key,
      const std::function<absl::Status(const nlohmann::json&, const std::string&)>& read) const;

  // Keys not in `known`, each with its value as compact JSON text.
  std::map<std::string, std::string> Unknown(std::initializer_list<std::string_view> known) const;

 private:
  ObjectReader(const nlohmann::json* json, std::string path)
      : json_(json), path_(std::move(path)) {}

  const nlohmann::json* json_;
  std::string path_;
};

}  // namespace trainpkg::oci::internal

#endif  // TRAINPKG_REGISTRY_OCI_INTERNAL_JSON_READER_H_
