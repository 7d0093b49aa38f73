#include "sdk/internal/json_request.h"

#include <optional>

#include "base/status_context.h"

namespace trainpkg::sdk::internal {

absl::StatusOr<http::HttpResponse> SendJsonRequest(http::HttpTransport& transport,
                                                   std::string_view method, const std::string& url,
                                                   const std::string& authorization,
                                                   const nlohmann::json* body, bool idempotent,
                                                   std::string_view what) {
  http::HttpRequest request = http::MakeRequest(std::string(method), url, idempotent);
  if (!authorization.empty()) request.headers.Set("Authorization", authorization);
  request.headers.Set("Accept", "application/json");
  std::optional<http::StringBodySource> source;
  if (body != nullptr) {
    source.emplace(body->dump());
    request.headers.Set("Content-Type", "application/json");
    request.body = &*source;
  }
  absl::StatusOr<http::HttpResponse> response = transport.Send(request);
  if (!response.ok()) {
    // Keeps the transport's payloads (http::TransportFailureOf).
    return base::WithContext(response.status(), what);
  }
  return response;
}

}  // namespace trainpkg::sdk::internal
