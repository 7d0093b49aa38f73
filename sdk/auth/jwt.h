// JSON Web Tokens signed with RS256 (RFC 7515/7519), as Google's service
// account credentials use them: base64url(header).base64url(payload).
// base64url(RSASSA-PKCS1-v1_5 SHA-256 signature), no padding.
#ifndef TRAINPKG_SDK_AUTH_JWT_H_
#define TRAINPKG_SDK_AUTH_JWT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::auth {

// base64url without padding (RFC 7515 §2).
std::string Base64UrlEncode(std::string_view data);

// Signs header.payload with the RSA private key in PEM (PKCS#8 "BEGIN
// PRIVATE KEY" as in Google key files, or PKCS#1). InvalidArgument when the
// key cannot be read or is not RSA; the key never appears in messages.
absl::StatusOr<std::string> MakeRs256Jwt(const nlohmann::json& header,
                                         const nlohmann::json& payload,
                                         std::string_view private_key_pem);

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_JWT_H_
