#include "sdk/internal/json_request.h"

#include <optional>

#include "base/status_context.h"

namespace trainpkg::sdk::internal {

absl::StatusOr<registry::HttpResponse> SendJsonRequest(registry::HttpTransport& transport,
                                                       std::string_view method,
                                                       const std::string& url,
                                                       const std::string& authorization,
                                                       const nlohmann::json* body, bool idempotent,
                                                       std::string_view what) {
  registry::HttpRequest request = registry::MakeRequest(std::string(method), url, idempotent);
  if (!authorization.empty()) request.headers.Set("Authorization", authorization);
  request.headers.Set("Accept", "application/json");
  std::optional<registry::StringBodySource> source;
  if (body != nullptr) {
    source.emplace(body->dump());
    request.headers.Set("Content-Type", "application/json");
    request.body = &*source;
  }
  absl::StatusOr<registry::HttpResponse> response = transport.Send(request);
  if (!response.ok()) {
    // Keeps the transport's payloads (registry::TransportFailureOf).
    return base::WithContext(response.status(), what);
  }
  return response;
}

}  // namespace trainpkg::sdk::internal
