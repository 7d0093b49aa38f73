#include "registry/auth/docker_config.h"

#include <vector>

#include "absl/strings/escaping.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "registry/auth/containers_auth.h"
#include "registry/auth/credential_helper.h"
#include "registry/internal/private_file.h"

namespace trainpkg::registry {
namespace {

using Json = nlohmann::json;

// The key docker login has always stored Docker Hub's credentials under;
// other tools reading config.json look for it there.
constexpr std::string_view kHubKey = "https://index.docker.io/v1/";

bool IsDockerHub(std::string_view host) {
  return host == "docker.io" || host == "index.docker.io" || host == "registry-1.docker.io";
}

// docker/cli ConvertToHostname: drop the scheme and any path.
std::string KeyHost(std::string_view key) {
  size_t scheme = key.find("://");
  if (scheme != std::string_view::npos) key = key.substr(scheme + 3);
  return std::string(key.substr(0, key.find('/')));
}

bool KeyMatches(std::string_view key, std::string_view registry) {
  std::string host = KeyHost(key);
  return host == registry || (IsDockerHub(host) && IsDockerHub(registry));
}

// The parsed file, or an empty object when it does not exist.
absl::StatusOr<Json> LoadConfig(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = base::ReadFile(path);
  if (absl::IsNotFound(text.status())) return Json::object();
  if (!text.ok()) return text.status();
  Json doc = base::ParseJson(*text).value_or(Json::value_t::discarded);
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{} is not a JSON object; fix or remove it", path.string()));
  }
  return doc;
}

std::string StringField(const Json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The helper configured for `key`, or "".
std::string HelperFor(const Json& config, const std::string& key) {
  auto helpers = config.find("credHelpers");
  if (helpers != config.end() && helpers->is_object()) {
    std::string name = StringField(*helpers, key.c_str());
    if (!name.empty()) return name;
  }
  // A per-registry helper wins over the default store, as in docker/cli.
  return StringField(config, "credsStore");
}

absl::StatusOr<Credential> FromAuthEntry(const Json& entry, const std::string& key,
                                         const std::filesystem::path& path) {
  Credential credential;
  credential.username = StringField(entry, "username");
  credential.password = StringField(entry, "password");
  credential.identity_token = StringField(entry, "identitytoken");
  credential.registry_token = StringField(entry, "registrytoken");
  std::string auth = StringField(entry, "auth");
  if (!auth.empty()) {
    std::string decoded;
    size_t colon = std::string::npos;
    if (absl::Base64Unescape(auth, &decoded)) colon = decoded.find(':');
    if (colon == std::string::npos || colon == 0) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: auths[\"{}\"].auth is not base64 of \"username:password\"", path.string(), key));
    }
    credential.username = decoded.substr(0, colon);
    credential.password = decoded.substr(colon + 1);
  }
  return credential;
}

absl::Status SaveConfig(const std::filesystem::path& path, const Json& config) {
  return internal::WritePrivateFileAtomic(path, config.dump(1, '\t') + "\n");
}

}  // namespace

absl::StatusOr<std::filesystem::path> DockerConfigPath(const base::Environment& env) {
  std::optional<std::string> dir = env.Get("DOCKER_CONFIG");
  if (dir.has_value() && !dir->empty()) return std::filesystem::path(*dir) / "config.json";
  std::optional<std::string> home = env.Get("HOME");
  if (!home.has_value() || home->empty()) {
    return absl::FailedPreconditionError(
        "cannot find docker's config.json: neither DOCKER_CONFIG nor HOME is set");
  }
  return std::filesystem::path(*home) / ".docker" / "config.json";
}

std::string DockerCredentialKey(std::string_view registry) {
  return IsDockerHub(registry) ? std::string(kHubKey) : std::string(registry);
}

namespace {

// What the file at `path` (docker's config.json format) holds for
// `registry`; anonymous when the file or its entry is missing.
absl::StatusOr<Credential> ResolveFrom(const base::Environment& env,
                                       const std::filesystem::path& path,
                                       std::string_view registry) {
  TP_ASSIGN_OR_RETURN(Json config, LoadConfig(path));
  std::string key = DockerCredentialKey(registry);
  std::string helper = HelperFor(config, key);
  if (!helper.empty()) return CredentialHelper(env, helper).Get(key);
  auto auths = config.find("auths");
  if (auths == config.end() || !auths->is_object()) return Credential{};
  if (auto exact = auths->find(key); exact != auths->end() && exact->is_object()) {
    return FromAuthEntry(*exact, key, path);
  }
  for (auto it = auths->begin(); it != auths->end(); ++it) {
    if (it->is_object() && KeyMatches(it.key(), registry)) {
      return FromAuthEntry(*it, it.key(), path);
    }
  }
  return Credential{};
}

}  // namespace

absl::StatusOr<Credential> DockerKeychain::Resolve(std::string_view registry) {
  absl::StatusOr<std::filesystem::path> docker = DockerConfigPath(env_);
  const std::vector<std::filesystem::path> neighbours = ContainersAuthFiles(env_);
  if (!docker.ok() && neighbours.empty()) return docker.status();
  if (docker.ok()) {
    TP_ASSIGN_OR_RETURN(Credential credential, ResolveFrom(env_, *docker, registry));
    if (!credential.anonymous()) return credential;
  }
  for (const std::filesystem::path& path : neighbours) {
    TP_ASSIGN_OR_RETURN(Credential credential, ResolveFrom(env_, path, registry));
    if (!credential.anonymous()) return credential;
  }
  return Credential{};
}

absl::StatusOr<SavedLogin> SaveLogin(const base::Environment& env, std::string_view registry,
                                     const Credential& credential) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path path, DockerConfigPath(env));
  TP_ASSIGN_OR_RETURN(Json config, LoadConfig(path));
  std::string key = DockerCredentialKey(registry);
  if (!config.contains("auths") || !config["auths"].is_object()) config["auths"] = Json::object();
  std::string helper = HelperFor(config, key);
  Json entry = Json::object();
  if (!helper.empty()) {
    TP_RETURN_IF_ERROR(CredentialHelper(env, helper).Store(key, credential));
  } else {
    if (!credential.username.empty() || !credential.password.empty()) {
      entry["auth"] = absl::Base64Escape(credential.username + ":" + credential.password);
    }
    if (!credential.identity_token.empty()) entry["identitytoken"] = credential.identity_token;
  }
  // With a helper the entry is empty, as docker writes it: the secret lives
  // in the helper.
  config["auths"][key] = entry;
  TP_RETURN_IF_ERROR(SaveConfig(path, config));
  return SavedLogin{.file = path, .helper = helper};
}

absl::Status RemoveLogin(const base::Environment& env, std::string_view registry) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path path, DockerConfigPath(env));
  TP_ASSIGN_OR_RETURN(Json config, LoadConfig(path));
  std::string key = DockerCredentialKey(registry);
  std::string helper = HelperFor(config, key);
  if (!helper.empty()) TP_RETURN_IF_ERROR(CredentialHelper(env, helper).Erase(key));
  auto auths = config.find("auths");
  if (auths == config.end() || !auths->is_object()) return absl::OkStatus();
  std::vector<std::string> doomed;
  // Every key that names this registry ("https://host/v1/", "host"), not
  // only the one we write: a logout must leave no credential behind.
  for (auto it = auths->begin(); it != auths->end(); ++it) {
    if (KeyMatches(it.key(), registry)) doomed.push_back(it.key());
  }
  if (doomed.empty()) return absl::OkStatus();
  for (const std::string& k : doomed) auths->erase(k);
  return SaveConfig(path, config);
}

}  // namespace trainpkg::registry
