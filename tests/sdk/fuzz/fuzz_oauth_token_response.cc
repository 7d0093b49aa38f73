// Fuzz target: any bytes as an OAuth2 token endpoint's or the GCE metadata
// server's HTTP reply (tests/registry/fuzz/fuzz_response.h), through
// ParseTokenResponse. Must never crash or trip a sanitizer, and a token
// never appears in an error message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "base/check.h"
#include "nlohmann/json.hpp"
#include "sdk/auth/internal/token_response.h"
#include "tests/registry/fuzz/fuzz_response.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const http::HttpResponse response = registry::fuzz::ParseFuzzResponse(text);
  absl::StatusOr<sdk::auth::AccessToken> token = sdk::auth::internal::ParseTokenResponse(
      response, absl::FromUnixSeconds(1800000000), "fuzzing the token endpoint");
  if (token.ok()) return 0;
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.contains("access_token") && body["access_token"].is_string()) {
    const std::string secret = body["access_token"];
    if (secret.size() < 8 || token.status().message().find(secret) == std::string::npos) return 0;
    // The secret's text is in the message: a leak only if it came from the
    // token. The same reply with another token of that length must not
    // show it (a token like "y is not" is part of the message's own words).
    http::HttpResponse other = response;
    body["access_token"] = std::string(secret.size(), 'Q');
    other.body = body.dump();
    absl::StatusOr<sdk::auth::AccessToken> again = sdk::auth::internal::ParseTokenResponse(
        other, absl::FromUnixSeconds(1800000000), "fuzzing the token endpoint");
    TP_CHECK(!again.ok() && again.status().message().find(secret) != std::string::npos,
             "the access token appears in the error: {}", token.status().ToString());
  }
  return 0;
}
