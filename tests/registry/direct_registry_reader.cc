#include "tests/registry/direct_registry_reader.h"

#include "absl/strings/numbers.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "httplib.h"
#include "nlohmann/json.hpp"

namespace trainpkg::registry::testing {
namespace {

constexpr char kAccept[] =
    "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, "
    "application/vnd.docker.distribution.manifest.v2+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json";

httplib::Client Connect(const std::string& host) {
  size_t colon = host.rfind(':');
  int port = 0;
  (void)absl::SimpleAtoi(host.substr(colon + 1), &port);
  httplib::Client client(host.substr(0, colon), port);
  client.set_connection_timeout(5);
  client.set_read_timeout(30);
  return client;
}

absl::StatusOr<std::string> Body(const httplib::Result& result, const std::string& what) {
  if (!result) {
    return absl::UnavailableError(
        fmt::format("{}: {}", what, httplib::to_string(result.error())));
  }
  if (result->status == 404) return absl::NotFoundError(fmt::format("{}: HTTP 404", what));
  if (result->status != 200) {
    return absl::InternalError(fmt::format("{}: HTTP {}: {}", what, result->status, result->body));
  }
  return result->body;
}

absl::StatusOr<nlohmann::json> Json(const std::string& text, const std::string& what) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InternalError(fmt::format("{}: not a JSON object", what));
  }
  return doc;
}

}  // namespace

absl::StatusOr<std::string> DirectRegistryReader::Manifest(const std::string& repo,
                                                           const std::string& reference) const {
  httplib::Client client = Connect(host_);
  return Body(client.Get(fmt::format("/v2/{}/manifests/{}", repo, reference),
                         httplib::Headers{{"Accept", kAccept}}),
              fmt::format("GET manifest {}:{}", repo, reference));
}

absl::StatusOr<std::string> DirectRegistryReader::Blob(const std::string& repo,
                                                       const std::string& digest) const {
  httplib::Client client = Connect(host_);
  return Body(client.Get(fmt::format("/v2/{}/blobs/{}", repo, digest)),
              fmt::format("GET blob {} of {}", digest, repo));
}

absl::StatusOr<bool> DirectRegistryReader::HasBlob(const std::string& repo,
                                                   const std::string& digest) const {
  httplib::Client client = Connect(host_);
  httplib::Result result = client.Head(fmt::format("/v2/{}/blobs/{}", repo, digest));
  absl::StatusOr<std::string> body = Body(result, fmt::format("HEAD blob {} of {}", digest, repo));
  if (body.ok()) return true;
  if (body.status().code() == absl::StatusCode::kNotFound) return false;
  return body.status();
}

absl::StatusOr<std::vector<std::string>> DirectRegistryReader::Repositories() const {
  httplib::Client client = Connect(host_);
  TP_ASSIGN_OR_RETURN(std::string text, Body(client.Get("/v2/_catalog?n=1000"), "GET _catalog"));
  TP_ASSIGN_OR_RETURN(nlohmann::json doc, Json(text, "_catalog"));
  std::vector<std::string> out;
  for (const nlohmann::json& name : doc.value("repositories", nlohmann::json::array())) {
    out.push_back(name.get<std::string>());
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> DirectRegistryReader::Tags(const std::string& repo) const {
  httplib::Client client = Connect(host_);
  absl::StatusOr<std::string> text =
      Body(client.Get(fmt::format("/v2/{}/tags/list", repo)), "GET tags of " + repo);
  if (text.status().code() == absl::StatusCode::kNotFound) return std::vector<std::string>{};
  if (!text.ok()) return text.status();
  TP_ASSIGN_OR_RETURN(nlohmann::json doc, Json(*text, "tags of " + repo));
  std::vector<std::string> out;
  if (doc.contains("tags") && doc["tags"].is_array()) {
    for (const nlohmann::json& tag : doc["tags"]) out.push_back(tag.get<std::string>());
  }
  return out;
}

absl::Status DirectRegistryReader::CheckManifest(const std::string& repo,
                                                 const std::string& reference,
                                                 const std::string& label,
                                                 std::vector<std::string>& problems) const {
  absl::StatusOr<std::string> bytes = Manifest(repo, reference);
  if (bytes.status().code() == absl::StatusCode::kNotFound) {
    problems.push_back(fmt::format("{}: manifest {} is missing", label, reference));
    return absl::OkStatus();
  }
  if (!bytes.ok()) return bytes.status();
  TP_ASSIGN_OR_RETURN(nlohmann::json doc, Json(*bytes, label));
  if (doc.contains("manifests")) {
    for (const nlohmann::json& child : doc["manifests"]) {
      std::string digest = child.value("digest", "");
      TP_RETURN_IF_ERROR(CheckManifest(repo, digest, label + " > " + digest, problems));
    }
    return absl::OkStatus();
  }
  std::vector<std::pair<std::string, std::string>> blobs;
  if (doc.contains("config")) blobs.emplace_back("config", doc["config"].value("digest", ""));
  for (const nlohmann::json& layer : doc.value("layers", nlohmann::json::array())) {
    blobs.emplace_back("layer", layer.value("digest", ""));
  }
  for (const auto& [role, digest] : blobs) {
    TP_ASSIGN_OR_RETURN(bool there, HasBlob(repo, digest));
    if (!there) problems.push_back(fmt::format("{}: {} {} is missing", label, role, digest));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> DirectRegistryReader::ManifestsWithMissingBlobs() const {
  std::vector<std::string> problems;
  TP_ASSIGN_OR_RETURN(std::vector<std::string> repos, Repositories());
  for (const std::string& repo : repos) {
    TP_ASSIGN_OR_RETURN(std::vector<std::string> tags, Tags(repo));
    for (const std::string& tag : tags) {
      TP_RETURN_IF_ERROR(CheckManifest(repo, tag, repo + ":" + tag, problems));
    }
  }
  return problems;
}

}  // namespace trainpkg::registry::testing
