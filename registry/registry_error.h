// Turning a registry's error response into an absl::Status. Distribution
// spec error bodies ({"errors":[{"code","message","detail"}]}) give the OCI
// code and the registry's own message; other bodies are quoted briefly.
#ifndef TRAINPKG_REGISTRY_REGISTRY_ERROR_H_
#define TRAINPKG_REGISTRY_REGISTRY_ERROR_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "http/http_transport.h"

namespace trainpkg::registry {

// A Status for a non-success `response` to the operation described by
// `context` (e.g. "pushing blob sha256:ab12… to gcr.io/p/app"). The message
// reads "<context>: <http status>: <CODE>: <message>[ (<detail>)]"; the code
// follows the HTTP status (401 Unauthenticated, 403 PermissionDenied, 404
// NotFound, 400/405/416 InvalidArgument/…, 429 ResourceExhausted, 5xx
// Unavailable). The first OCI code travels as a payload (RegistryErrorCode),
// and so does the response's Retry-After (RetryAfterHeader).
absl::Status StatusFromResponse(const http::HttpResponse& response, std::string_view context);

// The first OCI error code ("BLOB_UNKNOWN", "UNAUTHORIZED", …) carried by a
// Status from StatusFromResponse; "" when there is none.
std::string RegistryErrorCode(const absl::Status& status);

// The Retry-After header value of the response behind a Status from
// StatusFromResponse; nullopt when it had none.
std::optional<std::string> RetryAfterHeader(const absl::Status& status);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_REGISTRY_ERROR_H_
