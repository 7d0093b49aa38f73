#include "registry/oci/internal/json_reader.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "base/json_parse.h"
#include "fmt/format.h"

namespace trainpkg::oci::internal {
namespace {

constexpr size_t kMaxShown = 60;

std::string Describe(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

absl::Status Expected(std::string_view path, std::string_view what, const nlohmann::json& got) {
  return PathError(path, fmt::format("expected {}, got {}", what, Describe(got)));
}

absl::StatusOr<std::string> StringAt(const nlohmann::json& value, std::string_view path) {
  if (!value.is_string()) return Expected(path, "a string", value);
  return value.get<std::string>();
}

}  // namespace

std::string FieldPath(std::string_view parent, std::string_view field) {
  if (parent.empty()) return std::string(field);
  return fmt::format("{}.{}", parent, field);
}

std::string IndexPath(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

absl::Status PathError(std::string_view path, std::string_view message) {
  if (path.empty()) return absl::InvalidArgumentError(std::string(message));
  return absl::InvalidArgumentError(fmt::format("{}: {}", path, message));
}

absl::StatusOr<nlohmann::json> ParseJsonText(std::string_view text) {
  return base::ParseJson(text);
}

absl::StatusOr<ObjectReader> ObjectReader::Create(const nlohmann::json& json, std::string path) {
  if (!json.is_object()) return Expected(path, "an object", json);
  return ObjectReader(&json, std::move(path));
}

const nlohmann::json* ObjectReader::Find(std::string_view key) const {
  auto it = json_->find(std::string(key));
  if (it == json_->end() || it->is_null()) return nullptr;
  return &*it;
}

absl::Status ObjectReader::Require(std::string_view key) const {
  if (Find(key) == nullptr) return PathError(PathOf(key), "required field is missing");
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadString(std::string_view key, std::string* out) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absl::OkStatus();
  absl::StatusOr<std::string> text = StringAt(*value, PathOf(key));
  if (!text.ok()) return text.status();
  *out = *std::move(text);
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadInt64(std::string_view key, int64_t* out) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absl::OkStatus();
  if (value->is_number_unsigned()) {
    uint64_t number = value->get<uint64_t>();
    if (number > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return PathError(PathOf(key), fmt::format("{} does not fit in int64", number));
    }
    *out = static_cast<int64_t>(number);
    return absl::OkStatus();
  }
  if (!value->is_number_integer()) return Expected(PathOf(key), "an integer", *value);
  *out = value->get<int64_t>();
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadBool(std::string_view key, bool* out) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absl::OkStatus();
  if (!value->is_boolean()) return Expected(PathOf(key), "true or false", *value);
  *out = value->get<bool>();
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadStringList(std::string_view key,
                                          std::vector<std::string>* out) const {
  std::vector<std::string> list;
  absl::Status status = ForEach(key, [&list](const nlohmann::json& item, const std::string& path) {
    absl::StatusOr<std::string> text = StringAt(item, path);
    if (!text.ok()) return text.status();
    list.push_back(*std::move(text));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (Find(key) != nullptr) *out = std::move(list);
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadStringMap(std::string_view key,
                                         std::map<std::string, std::string>* out) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absl::OkStatus();
  if (!value->is_object()) return Expected(PathOf(key), "an object of strings", *value);
  std::map<std::string, std::string> map;
  for (const auto& [name, item] : value->items()) {
    absl::StatusOr<std::string> text = StringAt(item, FieldPath(PathOf(key), name));
    if (!text.ok()) return text.status();
    map.emplace(name, *std::move(text));
  }
  *out = std::move(map);
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadKeySet(std::string_view key, std::set<std::string>* out) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absl::OkStatus();
  if (!value->is_object()) return Expected(PathOf(key), "an object", *value);
  std::set<std::string> keys;
  for (const auto& [name, item] : value->items()) keys.insert(name);
  *out = std::move(keys);
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadDigest(std::string_view key, Digest* out) const {
  std::string text;
  absl::Status status = ReadString(key, &text);
  if (!status.ok() || Find(key) == nullptr) return status;
  absl::StatusOr<Digest> digest = Digest::Parse(text);
  if (!digest.ok()) return PathError(PathOf(key), std::string(digest.status().message()));
  *out = *std::move(digest);
  return absl::OkStatus();
}

absl::Status ObjectReader::ReadDigestList(std::string_view key, std::vector<Digest>* out) const {
  std::vector<Digest> list;
  absl::Status status = ForEach(key, [&list](const nlohmann::json& item, const std::string& path) {
    absl::StatusOr<std::string> text = StringAt(item, path);
    if (!text.ok()) return text.status();
    absl::StatusOr<Digest> digest = Digest::Parse(*text);
    if (!digest.ok()) return PathError(path, std::string(digest.status().message()));
    list.push_back(*std::move(digest));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (Find(key) != nullptr) *out = std::move(list);
  return absl::OkStatus();
}

absl::Status ObjectReader::ForEach(
    std::string_view key,
    const std::function<absl::Status(const nlohmann::json&, const std::string&)>& read) const {
  const nlohmann::json* value = Find(key);
  if (value == nullptr) return absl::OkStatus();
  if (!value->is_array()) return Expected(PathOf(key), "an array", *value);
  for (size_t i = 0; i < value->size(); ++i) {
    absl::Status status = read((*value)[i], IndexPath(PathOf(key), i));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::map<std::string, std::string> ObjectReader::Unknown(
    std::initializer_list<std::string_view> known) const {
  std::map<std::string, std::string> unknown;
  for (const auto& [name, item] : json_->items()) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    unknown.emplace(name, item.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  return unknown;
}

}  // namespace trainpkg::oci::internal
