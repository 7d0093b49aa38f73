// Where access tokens come from: an explicit token, a service-account key, a
// gcloud user login, the GCE metadata server. CachedCredentials
// (cached_credentials.h) sits in front of the ones that fetch over HTTP;
// MakeGoogleDefaultCredentials (google_default_credentials.h) picks one the
// way google-cloud-cpp does.
#ifndef TRAINPKG_SDK_AUTH_CREDENTIALS_H_
#define TRAINPKG_SDK_AUTH_CREDENTIALS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sdk/auth/access_token.h"

namespace trainpkg::sdk::auth {

// Implementations are thread-safe.
class Credentials {
 public:
  virtual ~Credentials() = default;
  // A token valid at `now`. Errors: Unauthenticated when the token endpoint
  // refused the credentials, Unavailable when it could not be reached,
  // InvalidArgument for a malformed reply; messages never carry secrets.
  virtual absl::StatusOr<AccessToken> GetToken(absl::Time now) = 0;
  // What the credentials are, for messages: "service account x@p.iam..."
  // (no secrets).
  virtual std::string Describe() const = 0;
};

// A fixed token (`--access-token-file`, $CLOUDSDK_AUTH_ACCESS_TOKEN), never refreshed.
class AccessTokenCredentials final : public Credentials {
 public:
  explicit AccessTokenCredentials(std::string token) : token_(std::move(token)) {}
  absl::StatusOr<AccessToken> GetToken(absl::Time) override { return AccessToken{token_}; }
  std::string Describe() const override { return "an explicit access token"; }

 private:
  const std::string token_;
};

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_CREDENTIALS_H_
