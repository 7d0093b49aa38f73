// An OAuth2 access token (or a self-signed JWT used as one) and when it
// stops being valid. The token is a secret: never log it.
#ifndef TRAINPKG_SDK_AUTH_ACCESS_TOKEN_H_
#define TRAINPKG_SDK_AUTH_ACCESS_TOKEN_H_

#include <string>

#include "absl/time/time.h"

namespace trainpkg::sdk::auth {

struct AccessToken {
  std::string token;
  absl::Time expiration = absl::InfiniteFuture();
};

// "Bearer <token>", the Authorization header value.
inline std::string AuthorizationHeaderValue(const AccessToken& token) {
  return "Bearer " + token.token;
}

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_ACCESS_TOKEN_H_
