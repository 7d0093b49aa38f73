// Service-account key files (`"type": "service_account"`) and the two ways
// google-cloud-cpp turns them into bearer tokens:
//   kSelfSignedJwt (default): an RS256 JWT signed with the key is itself the
//     token: {"alg":"RS256","typ":"JWT","kid":private_key_id} .
//     {"iss":email,"sub":email,"iat":now,"exp":now+3600,"scope":<scopes>}
//   kOAuthJwtBearer: a JWT assertion {"iss","scope","aud":token_uri,"iat",
//     "exp"} is exchanged at token_uri (grant_type jwt-bearer) for an OAuth2
//     access token.
#ifndef TRAINPKG_SDK_AUTH_SERVICE_ACCOUNT_CREDENTIALS_H_
#define TRAINPKG_SDK_AUTH_SERVICE_ACCOUNT_CREDENTIALS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "http/http_transport.h"
#include "nlohmann/json.hpp"
#include "sdk/auth/credentials.h"

namespace trainpkg::sdk::auth {

inline constexpr char kCloudPlatformScope[] = "https://www.googleapis.com/auth/cloud-platform";
inline constexpr char kGoogleTokenUri[] = "https://oauth2.googleapis.com/token";

struct ServiceAccountKey {
  std::string client_email;
  std::string private_key;  // PEM; secret
  std::string private_key_id;
  std::string token_uri = kGoogleTokenUri;
  std::string project_id;
};

// Reads a parsed key file; `source` (the path) names it in errors.
// InvalidArgument when client_email or private_key is missing.
absl::StatusOr<ServiceAccountKey> ServiceAccountKeyFromJson(const nlohmann::json& json,
                                                            std::string_view source);

enum class ServiceAccountFlow { kSelfSignedJwt, kOAuthJwtBearer };

// Thread-safe. Not cached: put CachedCredentials in front.
class ServiceAccountCredentials final : public Credentials {
 public:
  // `transport` is only used by kOAuthJwtBearer (may be null otherwise).
  ServiceAccountCredentials(ServiceAccountKey key, ServiceAccountFlow flow,
                            std::shared_ptr<http::HttpTransport> transport,
                            std::vector<std::string> scopes = {kCloudPlatformScope});

  absl::StatusOr<AccessToken> GetToken(absl::Time now) override;
  std::string Describe() const override;

 private:
  const ServiceAccountKey key_;
  const ServiceAccountFlow flow_;
  const std::shared_ptr<http::HttpTransport> transport_;
  const std::vector<std::string> scopes_;
};

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_SERVICE_ACCOUNT_CREDENTIALS_H_
