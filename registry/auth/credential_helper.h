// docker's credential helper protocol: `docker-credential-<name> <verb>`
// found on PATH (docker-credential-gcloud, -pass, -secretservice, …).
//   get:   stdin the server URL; stdout {"ServerURL","Username","Secret"}
//   store: stdin {"ServerURL","Username","Secret"}
//   erase: stdin the server URL
// A Username of "<token>" marks the Secret as an identity token.
#ifndef TRAINPKG_REGISTRY_AUTH_CREDENTIAL_HELPER_H_
#define TRAINPKG_REGISTRY_AUTH_CREDENTIAL_HELPER_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/environment.h"
#include "registry/auth/credential.h"

namespace trainpkg::registry {

// The credential helper `docker-credential-<name>` on the PATH of `env`.
// Thread-compatible; each call runs the helper once (30 s limit).
class CredentialHelper {
 public:
  CredentialHelper(const base::Environment& env, std::string name)
      : env_(env), name_(std::move(name)) {}

  // The stored credential for `server_url`; anonymous when the helper says
  // "credentials not found". FailedPrecondition when the helper is not on
  // PATH;
  // Unavailable with the helper's own message when it fails otherwise. The
  // secret never appears in a Status.
  absl::StatusOr<Credential> Get(std::string_view server_url) const;
  absl::Status Store(std::string_view server_url, const Credential& credential) const;
  absl::Status Erase(std::string_view server_url) const;

  // "docker-credential-<name>".
  std::string program() const { return "docker-credential-" + name_; }

 private:
  absl::StatusOr<std::string> Run(std::string_view verb, std::string_view input) const;

  const base::Environment& env_;
  std::string name_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_CREDENTIAL_HELPER_H_
