#include "sdk/auth/internal/token_response.h"

#include "base/json_parse.h"
#include "base/status_context.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::auth::internal {

absl::StatusOr<AccessToken> ParseTokenResponse(const http::HttpResponse& response, absl::Time now,
                                               std::string_view what) {
  nlohmann::json body = base::ParseJson(response.body).value_or(nlohmann::json::value_t::discarded);
  if (response.status < 200 || response.status >= 300) {
    std::string detail;
    if (body.is_object() && body.contains("error")) {
      const nlohmann::json& error = body["error"];
      detail = error.is_string() ? error.get<std::string>() : error.dump();
      if (body.contains("error_description") && body["error_description"].is_string()) {
        detail += ": " + body["error_description"].get<std::string>();
      }
    }
    std::string message =
        fmt::format("{}: HTTP {}{}{}", what, response.status, detail.empty() ? "" : " ", detail);
    // A refused grant (an expired refresh token is 400 invalid_grant): a retry
    // will not help, a new login will. Anything else may pass.
    if (response.status == 400 || response.status == 401 || response.status == 403) {
      return absl::UnauthenticatedError(message);
    }
    return absl::UnavailableError(message);
  }
  if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string() ||
      !body.contains("expires_in") || !body["expires_in"].is_number()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the reply is not a token (expected JSON with access_token and expires_in)", what));
  }
  if (body.contains("token_type") && body["token_type"].is_string() &&
      body["token_type"].get<std::string>() != "Bearer") {
    return absl::InvalidArgumentError(fmt::format("{}: token_type is \"{}\", expected \"Bearer\"",
                                                  what, body["token_type"].get<std::string>()));
  }
  // expires_in counts from the reply; `now` is taken before the request, so
  // the expiry errs early.
  return AccessToken{.token = body["access_token"].get<std::string>(),
                     .expiration = now + absl::Seconds(body["expires_in"].get<double>())};
}

absl::StatusOr<AccessToken> PostTokenForm(http::HttpTransport& transport, const std::string& url,
                                          const std::string& form, absl::Time now,
                                          std::string_view what) {
  http::StringBodySource body(form);
  http::HttpRequest request = http::MakeRequest("POST", url, /*idempotent=*/false);
  request.headers.Set("Content-Type", "application/x-www-form-urlencoded");
  request.body = &body;
  absl::StatusOr<http::HttpResponse> response = transport.Send(request);
  if (!response.ok()) {
    return base::WithContext(response.status(), what);
  }
  return ParseTokenResponse(*response, now, what);
}

}  // namespace trainpkg::sdk::auth::internal
