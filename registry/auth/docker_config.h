// docker's config.json ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json) as a Keychain, and login/logout that write it the
// way `docker login` does.
#ifndef TRAINPKG_REGISTRY_AUTH_DOCKER_CONFIG_H_
#define TRAINPKG_REGISTRY_AUTH_DOCKER_CONFIG_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/environment.h"
#include "registry/auth/credential.h"

namespace trainpkg::registry {

// $DOCKER_CONFIG/config.json, else $HOME/.docker/config.json.
// FailedPrecondition when neither DOCKER_CONFIG nor HOME is set.
absl::StatusOr<std::filesystem::path> DockerConfigPath(const base::Environment& env);

// The key docker files a registry under: "https://index.docker.io/v1/" for
// Docker Hub (docker.io, index.docker.io, registry-1.docker.io), otherwise
// the registry as given ("gcr.io", "localhost:5000").
std::string DockerCredentialKey(std::string_view registry);

// Resolves like docker/cli: credHelpers[registry], then credsStore, then
// auths (base64 "auth", "username"/"password", "identitytoken",
// "registrytoken"; legacy keys such as "https://host/v1/" match by host).
// When docker's file has no credential for the registry, podman's and
// skopeo's auth.json files (containers_auth.h) are read the same way, in
// order. Re-reads the files on every call, so a login in another process is
// seen.
class DockerKeychain final : public Keychain {
 public:
  // `env` must outlive the keychain; it supplies DOCKER_CONFIG, HOME, PATH.
  explicit DockerKeychain(const base::Environment& env) : env_(env) {}
  // InvalidArgument naming the file when a file read is not valid JSON or a
  // base64 "auth" is malformed; missing files mean anonymous.
  // FailedPrecondition when no file can be located (DockerConfigPath).
  absl::StatusOr<Credential> Resolve(std::string_view registry) override;

 private:
  const base::Environment& env_;
};

// Where SaveLogin put a credential.
struct SavedLogin {
  std::filesystem::path file;  // docker's config.json
  std::string helper;          // the credential helper that stores it; "": in `file`
                               // in plain text (base64 is no encryption)
};

// Saves `credential` for `registry` like `docker login`: through the
// configured helper (credHelpers / credsStore) with an empty "auths" entry
// left as a marker, or as base64 "auth" (and "identitytoken") in "auths".
// The file is replaced atomically, created 0600, and keeps every other field.
absl::StatusOr<SavedLogin> SaveLogin(const base::Environment& env, std::string_view registry,
                                     const Credential& credential);

// Forgets `registry` like `docker logout`: erases it from the helper and
// removes its "auths" entries (legacy keys included). OK when nothing was
// stored.
absl::Status RemoveLogin(const base::Environment& env, std::string_view registry);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_DOCKER_CONFIG_H_
