#include "sdk/auth/service_account_credentials.h"

#include "absl/strings/str_join.h"
#include "base/status_context.h"
#include "fmt/format.h"
#include "sdk/auth/internal/token_response.h"
#include "sdk/auth/jwt.h"
#include "sdk/internal/percent_encoding.h"

namespace trainpkg::sdk::auth {
namespace {

// google-cloud-cpp's lifetime, and the longest Google accepts for an assertion.
constexpr absl::Duration kTokenLifetime = absl::Seconds(3600);

std::string StringField(const nlohmann::json& json, const char* name) {
  auto it = json.find(name);
  return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

absl::StatusOr<ServiceAccountKey> ServiceAccountKeyFromJson(const nlohmann::json& json,
                                                            std::string_view source) {
  ServiceAccountKey key;
  key.client_email = StringField(json, "client_email");
  key.private_key = StringField(json, "private_key");
  key.private_key_id = StringField(json, "private_key_id");
  key.project_id = StringField(json, "project_id");
  if (std::string uri = StringField(json, "token_uri"); !uri.empty()) key.token_uri = uri;
  for (const char* field : {"client_email", "private_key"}) {
    if (StringField(json, field).empty()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: service account key has no \"{}\"", source, field));
    }
  }
  return key;
}

ServiceAccountCredentials::ServiceAccountCredentials(ServiceAccountKey key, ServiceAccountFlow flow,
                                                     std::shared_ptr<http::HttpTransport> transport,
                                                     std::vector<std::string> scopes)
    : key_(std::move(key)),
      flow_(flow),
      transport_(std::move(transport)),
      scopes_(std::move(scopes)) {}

std::string ServiceAccountCredentials::Describe() const {
  return "service account " + key_.client_email;
}

absl::StatusOr<AccessToken> ServiceAccountCredentials::GetToken(absl::Time now) {
  const int64_t iat = absl::ToUnixSeconds(now);
  const int64_t exp = iat + absl::ToInt64Seconds(kTokenLifetime);
  nlohmann::json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!key_.private_key_id.empty()) header["kid"] = key_.private_key_id;
  const std::string scope = absl::StrJoin(scopes_, " ");
  // google-cloud-cpp's default: the signed JWT is itself the bearer token,
  // with no round trip to the token endpoint.
  if (flow_ == ServiceAccountFlow::kSelfSignedJwt) {
    nlohmann::json payload = {{"iss", key_.client_email},
                              {"sub", key_.client_email},
                              {"iat", iat},
                              {"exp", exp},
                              {"scope", scope}};
    absl::StatusOr<std::string> jwt = MakeRs256Jwt(header, payload, key_.private_key);
    if (!jwt.ok()) {
      return base::WithContext(jwt.status(), fmt::format("signing a JWT for {}", Describe()));
    }
    return AccessToken{.token = *std::move(jwt), .expiration = absl::FromUnixSeconds(exp)};
  }
  nlohmann::json payload = {{"iss", key_.client_email},
                            {"scope", scope},
                            {"aud", key_.token_uri},
                            {"iat", iat},
                            {"exp", exp}};
  absl::StatusOr<std::string> assertion = MakeRs256Jwt(header, payload, key_.private_key);
  if (!assertion.ok()) {
    return base::WithContext(assertion.status(),
                             fmt::format("signing a JWT assertion for {}", Describe()));
  }
  std::string form = sdk::internal::EncodeQuery(
      {{"grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"}, {"assertion", *assertion}});
  return internal::PostTokenForm(
      *transport_, key_.token_uri, form, now,
      fmt::format("exchanging a JWT for {} at {}", Describe(), key_.token_uri));
}

}  // namespace trainpkg::sdk::auth
