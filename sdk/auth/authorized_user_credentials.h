// gcloud user credentials (`"type": "authorized_user"`, what
// `gcloud auth application-default login` writes): the refresh token is
// exchanged at token_uri for an access token (grant_type=refresh_token).
#ifndef TRAINPKG_SDK_AUTH_AUTHORIZED_USER_CREDENTIALS_H_
#define TRAINPKG_SDK_AUTH_AUTHORIZED_USER_CREDENTIALS_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "http/http_transport.h"
#include "nlohmann/json.hpp"
#include "sdk/auth/credentials.h"
#include "sdk/auth/service_account_credentials.h"

namespace trainpkg::sdk::auth {

struct AuthorizedUser {
  std::string client_id;
  std::string client_secret;  // secret
  std::string refresh_token;  // secret
  std::string token_uri = kGoogleTokenUri;
};

// InvalidArgument naming `source` when client_id, client_secret or
// refresh_token is missing.
absl::StatusOr<AuthorizedUser> AuthorizedUserFromJson(const nlohmann::json& json,
                                                      std::string_view source);

// Thread-safe. Not cached: put CachedCredentials in front.
class AuthorizedUserCredentials final : public Credentials {
 public:
  AuthorizedUserCredentials(AuthorizedUser user, std::shared_ptr<http::HttpTransport> transport)
      : user_(std::move(user)), transport_(std::move(transport)) {}

  // POSTs client_id, client_secret, refresh_token to token_uri.
  absl::StatusOr<AccessToken> GetToken(absl::Time now) override;
  std::string Describe() const override { return "gcloud user credentials"; }

 private:
  const AuthorizedUser user_;
  const std::shared_ptr<http::HttpTransport> transport_;
};

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_AUTHORIZED_USER_CREDENTIALS_H_
