#include "registry/auth/authenticator.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "base/json_parse.h"
#include "base/log.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "http/url.h"
#include "nlohmann/json.hpp"
#include "registry/auth/scope.h"
#include "registry/registry_error.h"

namespace trainpkg::registry {
namespace {

constexpr char kClientId[] = "trainpkg";
constexpr int64_t kDefaultTokenSeconds = 60;  // token.md: default and minimum

std::string BasicHeader(const Credential& c) {
  return "Basic " + absl::Base64Escape(c.username + ":" + c.password);
}

bool HasPassword(const Credential& c) { return !c.username.empty() || !c.password.empty(); }

const Challenge* Find(const std::vector<Challenge>& challenges, std::string_view scheme) {
  for (const Challenge& c : challenges) {
    if (c.scheme == scheme) return &c;
  }
  return nullptr;
}

}  // namespace

Authenticator::Authenticator(std::string registry, std::string_view registry_url,
                             std::shared_ptr<Keychain> keychain,
                             std::shared_ptr<http::HttpTransport> transport, base::Clock& clock)
    : registry_(std::move(registry)),
      origin_(http::UrlOrigin(registry_url).value_or(std::string(registry_url))),
      keychain_(std::move(keychain)),
      transport_(std::move(transport)),
      clock_(clock) {}

absl::StatusOr<Credential> Authenticator::CredentialLocked() {
  if (!credential_.has_value()) {
    absl::StatusOr<Credential> resolved = keychain_->Resolve(registry_);
    if (!resolved.ok()) {
      return base::WithContext(resolved.status(),
                               fmt::format("finding credentials for {}", registry_));
    }
    credential_ = *resolved;
  }
  return *credential_;
}

absl::StatusOr<std::optional<std::string>> Authenticator::AuthorizationFor(
    const std::vector<std::string>& scopes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (scheme_ == "basic") {
    TP_ASSIGN_OR_RETURN(Credential credential, CredentialLocked());
    if (!HasPassword(credential)) return std::nullopt;
    return BasicHeader(credential);
  }
  if (scheme_ == "bearer") return BearerLocked(scopes, /*fresh=*/false);
  return std::nullopt;
}

absl::StatusOr<std::optional<std::string>> Authenticator::Answer(
    const std::vector<Challenge>& challenges, const std::vector<std::string>& scopes,
    const std::optional<std::string>& rejected) {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<std::string> header;
  // Bearer is preferred when a registry offers both: it never sends the
  // password to the registry itself, only to its token realm.
  if (const Challenge* bearer = Find(challenges, "bearer")) {
    scheme_ = "bearer";
    realm_ = bearer->Param("realm");
    service_ = bearer->Param("service");
    if (realm_.empty()) {
      return absl::UnauthenticatedError(
          fmt::format("{} asked for a bearer token but named no realm to get it from", registry_));
    }
    const bool realm_https = absl::StartsWithIgnoreCase(realm_, "https://");
    if (!realm_https && !absl::StartsWithIgnoreCase(realm_, "http://")) {
      return absl::FailedPreconditionError(fmt::format(
          "{} named the bearer token realm \"{}\", which is not an absolute http(s) URL", registry_,
          http::UrlForDisplay(realm_)));
    }
    if (!realm_https && origin_.starts_with("https://")) {
      return absl::FailedPreconditionError(fmt::format(
          "{} is served over https but named the plain-http token realm {}; trainpkg sends no "
          "credentials over http for an https registry",
          registry_, http::UrlForDisplay(realm_)));
    }
    // The challenge may ask for more than this request knew it needed (a
    // mount's pull on the source repository); the token must cover both.
    std::vector<std::string> wanted = MergeScopes(scopes, bearer->Param("scope"));
    // A cached token the registry just refused (revoked, or expired early) is
    // replaced, not sent again.
    bool token_rejected = rejected.has_value() && rejected->starts_with("Bearer ");
    TP_ASSIGN_OR_RETURN(header, BearerLocked(wanted, token_rejected));
  } else if (Find(challenges, "basic") != nullptr) {
    scheme_ = "basic";
    TP_ASSIGN_OR_RETURN(Credential credential, CredentialLocked());
    if (HasPassword(credential)) header = BasicHeader(credential);
  }
  // The same header was just refused: sending it again would only loop.
  if (header == rejected) return std::nullopt;
  return header;
}

absl::StatusOr<std::string> Authenticator::BearerLocked(const std::vector<std::string>& scopes,
                                                        bool fresh) {
  std::string key = absl::StrJoin(scopes, " ");
  auto cached = tokens_.find(key);
  if (!fresh && cached != tokens_.end() && clock_.Now() < cached->second.expires) {
    return cached->second.header;
  }
  TP_ASSIGN_OR_RETURN(Credential credential, CredentialLocked());
  TP_ASSIGN_OR_RETURN(Token token, FetchToken(credential, scopes));
  tokens_[key] = token;
  return token.header;
}

absl::StatusOr<Authenticator::Token> Authenticator::FetchToken(
    const Credential& credential, const std::vector<std::string>& scopes) {
  if (!credential.registry_token.empty()) {
    return Token{"Bearer " + credential.registry_token, absl::InfiniteFuture()};
  }
  std::string context = fmt::format("getting a token for \"{}\" from {}",
                                    absl::StrJoin(scopes, " "), http::UrlForDisplay(realm_));
  // An identity token (docker login's OAuth2 refresh token) goes to the
  // OAuth2 endpoint (POST, grant_type=refresh_token); realms without one
  // answer 404 or 405, and then the token GET with Basic credentials is tried.
  if (!credential.identity_token.empty()) {
    TP_ASSIGN_OR_RETURN(http::HttpResponse posted, PostOAuth(credential, scopes));
    if (posted.status != 404 && posted.status != 405) return ParseToken(posted, context);
    TP_LOG(INFO, "{} has no OAuth2 endpoint (HTTP {}); using GET", realm_, posted.status);
  }
  TP_ASSIGN_OR_RETURN(http::HttpResponse got, GetToken(credential, scopes));
  return ParseToken(got, context);
}

absl::StatusOr<http::HttpResponse> Authenticator::PostOAuth(
    const Credential& credential, const std::vector<std::string>& scopes) {
  std::string form =
      fmt::format("grant_type=refresh_token&client_id={}&service={}&scope={}&refresh_token={}",
                  kClientId, http::UrlEncode(service_), http::UrlEncode(absl::StrJoin(scopes, " ")),
                  http::UrlEncode(credential.identity_token));
  http::StringBodySource body(std::move(form));
  http::HttpRequest request = http::MakeRequest("POST", realm_, true);
  request.body = &body;
  request.headers.Add("Content-Type", "application/x-www-form-urlencoded");
  return transport_->Send(request);
}

absl::StatusOr<http::HttpResponse> Authenticator::GetToken(const Credential& credential,
                                                           const std::vector<std::string>& scopes) {
  std::string url = realm_ + (realm_.find('?') == std::string::npos ? "?" : "&");
  url += "service=" + http::UrlEncode(service_);
  for (const std::string& scope : scopes) url += "&scope=" + http::UrlEncode(scope);
  http::HttpRequest request = http::MakeRequest("GET", url, true);
  if (HasPassword(credential)) request.headers.Add("Authorization", BasicHeader(credential));
  return transport_->Send(request);
}

absl::StatusOr<Authenticator::Token> Authenticator::ParseToken(const http::HttpResponse& response,
                                                               std::string_view context) {
  if (response.status != 200) return StatusFromResponse(response, context);
  nlohmann::json doc = base::ParseJson(response.body).value_or(nlohmann::json::value_t::discarded);
  std::string token;
  if (doc.is_object()) {
    if (doc.contains("token") && doc["token"].is_string()) token = doc["token"];
    // token.md: "access_token" is accepted in place of "token" for OAuth 2.0
    // compatibility.
    if (token.empty() && doc.contains("access_token") && doc["access_token"].is_string()) {
      token = doc["access_token"];
    }
  }
  if (token.empty()) {
    return absl::UnauthenticatedError(
        fmt::format("{}: the response holds no \"token\" or \"access_token\"", context));
  }
  int64_t seconds = kDefaultTokenSeconds;
  if (doc.contains("expires_in") && doc["expires_in"].is_number_integer()) {
    seconds = std::max(kDefaultTokenSeconds, doc["expires_in"].get<int64_t>());
  }
  // A new refresh token replaces the old one for the next fetch.
  if (doc.contains("refresh_token") && doc["refresh_token"].is_string() && credential_) {
    credential_->identity_token = doc["refresh_token"];
  }
  // Renew at 90% of the lifetime, before the registry starts refusing it.
  absl::Time expires = clock_.Now() + absl::Seconds(seconds) * 0.9;
  return Token{"Bearer " + token, expires};
}

}  // namespace trainpkg::registry
