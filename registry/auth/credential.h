// Registry credentials and where they come from.
#ifndef TRAINPKG_REGISTRY_AUTH_CREDENTIAL_H_
#define TRAINPKG_REGISTRY_AUTH_CREDENTIAL_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

namespace trainpkg::registry {

// What docker's config.json or a credential helper holds for one registry.
// All fields empty means anonymous. Never log the secret fields.
struct Credential {
  std::string username{};
  std::string password{};
  std::string identity_token{};  // an OAuth2 refresh token (config "identitytoken")
  std::string registry_token{};  // a bearer token sent as is (config "registrytoken")

  bool anonymous() const {
    return username.empty() && password.empty() && identity_token.empty() && registry_token.empty();
  }
};

// Finds the credential for a registry ("gcr.io", "localhost:5000",
// "docker.io"). Implementations are thread-safe.
class Keychain {
 public:
  virtual ~Keychain() = default;
  // An anonymous Credential when none is configured; a Status only when the
  // configuration is broken (unreadable config.json, a failing helper).
  virtual absl::StatusOr<Credential> Resolve(std::string_view registry) = 0;
};

// A keychain that knows no one.
class AnonymousKeychain final : public Keychain {
 public:
  absl::StatusOr<Credential> Resolve(std::string_view) override { return Credential{}; }
};

// A keychain that gives one credential for every registry (checking a
// login before it is saved).
class StaticKeychain final : public Keychain {
 public:
  explicit StaticKeychain(Credential credential) : credential_(std::move(credential)) {}
  absl::StatusOr<Credential> Resolve(std::string_view) override { return credential_; }

 private:
  Credential credential_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_CREDENTIAL_H_
