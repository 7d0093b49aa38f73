#include "packager/builder/layer_cache.h"

#include "base/file_util.h"
#include "base/json_parse.h"
#include "nlohmann/json.hpp"

namespace trainpkg::packager::builder {

std::optional<CachedLayer> LayerCache::Lookup(const std::string& key) const {
  auto text = base::ReadFile(dir_ / (key + ".json"));
  if (!text.ok()) return std::nullopt;
  nlohmann::json json = base::ParseJson(*text).value_or(nlohmann::json::value_t::discarded);
  if (!json.is_object() || !json["descriptor"].is_string() || !json["diff_id"].is_string()) {
    return std::nullopt;
  }
  auto descriptor = oci::ParseDescriptor(json["descriptor"].get<std::string>());
  auto diff_id = oci::Digest::Parse(json["diff_id"].get<std::string>());
  // An entry whose blob was collected since is a miss: the step runs again
  // rather than naming a layer the store no longer has.
  if (!descriptor.ok() || !diff_id.ok() || !blobs_.HasBlob(descriptor->digest)) return std::nullopt;
  return CachedLayer{*descriptor, *diff_id};
}

std::set<oci::Digest> LayerCache::ReferencedBlobs(const std::filesystem::path& dir) {
  std::set<oci::Digest> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    auto text = base::ReadFile(entry.path());
    if (!text.ok()) continue;
    nlohmann::json json = base::ParseJson(*text).value_or(nlohmann::json::value_t::discarded);
    if (!json.is_object() || !json["descriptor"].is_string()) continue;
    auto descriptor = oci::ParseDescriptor(json["descriptor"].get<std::string>());
    if (descriptor.ok()) out.insert(descriptor->digest);
  }
  return out;
}

absl::Status LayerCache::Record(const std::string& key, const CachedLayer& layer) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), "creating " + dir_.string());
  nlohmann::json json = {{"descriptor", oci::SerializeDescriptor(layer.descriptor)},
                         {"diff_id", layer.diff_id.ToString()}};
  return base::WriteFileAtomic(dir_ / (key + ".json"), json.dump());
}

}  // namespace trainpkg::packager::builder
