// The token endpoints' replies (OAuth2 token endpoint and the GCE metadata
// server): {"access_token": ..., "expires_in": N, "token_type": "Bearer"}
// on success, {"error": ..., "error_description": ...} on failure.
#ifndef TRAINPKG_SDK_AUTH_INTERNAL_TOKEN_RESPONSE_H_
#define TRAINPKG_SDK_AUTH_INTERNAL_TOKEN_RESPONSE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "http/http_transport.h"
#include "sdk/auth/access_token.h"

namespace trainpkg::sdk::auth::internal {

// `what` names the request in errors ("refreshing the gcloud user token at
// https://oauth2.googleapis.com/token"). 400/401/403 → Unauthenticated with
// the endpoint's error and description, other statuses → Unavailable,
// a 2xx reply without access_token/expires_in → InvalidArgument. The token
// never appears in a message.
absl::StatusOr<AccessToken> ParseTokenResponse(const http::HttpResponse& response, absl::Time now,
                                               std::string_view what);

// POSTs an application/x-www-form-urlencoded body and parses the reply.
absl::StatusOr<AccessToken> PostTokenForm(http::HttpTransport& transport, const std::string& url,
                                          const std::string& form, absl::Time now,
                                          std::string_view what);

}  // namespace trainpkg::sdk::auth::internal

#endif  // TRAINPKG_SDK_AUTH_INTERNAL_TOKEN_RESPONSE_H_
