// One JSON request/response exchange of the REST clients (Vertex AI,
// Kubernetes): the body (when given) as application/json, Accept
// application/json, the Authorization value (when not empty).
#ifndef TRAINPKG_SDK_INTERNAL_JSON_REQUEST_H_
#define TRAINPKG_SDK_INTERNAL_JSON_REQUEST_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "http/http_transport.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::internal {

// The response for any HTTP status. A transport failure keeps its code and
// payload (http::TransportFailureOf) and reads "<what>: <message>" (the
// transports' messages name the method and URL).
absl::StatusOr<http::HttpResponse> SendJsonRequest(http::HttpTransport& transport,
                                                   std::string_view method, const std::string& url,
                                                   const std::string& authorization,
                                                   const nlohmann::json* body, bool idempotent,
                                                   std::string_view what);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_JSON_REQUEST_H_
