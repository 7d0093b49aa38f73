// Answers a registry's WWW-Authenticate challenges for one registry host:
// Basic with the keychain's username and password, or Bearer by asking the
// challenge's token realm (GET with Basic or anonymous credentials; POST
// grant_type=refresh_token when the credential is an identity token, falling
// back to GET when the server has no OAuth2 endpoint). Tokens are cached per
// scope set and fetched again shortly before they expire.
//
// Credentials belong to one origin, the registry's own (scheme, host, port):
// AuthTransport attaches them to no other URL. A token realm may be another
// host (auth.docker.io), but never plain http for an https registry.
#ifndef TRAINPKG_REGISTRY_AUTH_AUTHENTICATOR_H_
#define TRAINPKG_REGISTRY_AUTH_AUTHENTICATOR_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "http/http_transport.h"
#include "registry/auth/challenge.h"
#include "registry/auth/credential.h"

namespace trainpkg::registry {

// Thread-safe. `keychain` is asked once, on the first challenge.
class Authenticator {
 public:
  // `registry_url` is the registry's base URL ("https://host:port"), whose
  // origin alone gets credentials; `transport` carries the token requests;
  // `clock` must outlive this.
  Authenticator(std::string registry, std::string_view registry_url,
                std::shared_ptr<Keychain> keychain, std::shared_ptr<http::HttpTransport> transport,
                base::Clock& clock);

  // "scheme://host:port" of the registry (internal::UrlOrigin).
  const std::string& origin() const { return origin_; }

  // The Authorization header value for a request needing `scopes`, once a
  // challenge told us the scheme (a token is fetched if none is cached);
  // nullopt before any challenge was seen.
  absl::StatusOr<std::optional<std::string>> AuthorizationFor(
      const std::vector<std::string>& scopes);

  // Handles a 401 carrying `challenges` for a request that needed `scopes`
  // and was sent with `rejected` (nullopt: sent without). Returns the header
  // to retry with, or nullopt when there is nothing new to try (the 401 is
  // then the answer). Unauthenticated when the token server refuses;
  // FailedPrecondition when an https registry names a plain-http (or no
  // absolute) token realm; secrets never appear in a Status.
  absl::StatusOr<std::optional<std::string>> Answer(const std::vector<Challenge>& challenges,
                                                    const std::vector<std::string>& scopes,
                                                    const std::optional<std::string>& rejected);

 private:
  struct Token {
    std::string header;
    absl::Time expires;
  };

  absl::StatusOr<Credential> CredentialLocked();
  absl::StatusOr<std::string> BearerLocked(const std::vector<std::string>& scopes, bool fresh);
  absl::StatusOr<Token> FetchToken(const Credential& credential,
                                   const std::vector<std::string>& scopes);
  absl::StatusOr<http::HttpResponse> PostOAuth(const Credential& credential,
                                               const std::vector<std::string>& scopes);
  absl::StatusOr<http::HttpResponse> GetToken(const Credential& credential,
                                              const std::vector<std::string>& scopes);
  absl::StatusOr<Token> ParseToken(const http::HttpResponse& response, std::string_view context);

  const std::string registry_;
  const std::string origin_;
  const std::shared_ptr<Keychain> keychain_;
  const std::shared_ptr<http::HttpTransport> transport_;
  base::Clock& clock_;

  std::mutex mu_;
  std::optional<Credential> credential_;
  std::string scheme_;  // "", "basic" or "bearer"
  std::string realm_;   // bearer token endpoint
  std::string service_;
  std::map<std::string, Token> tokens_;  // by joined scopes
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_AUTHENTICATOR_H_
