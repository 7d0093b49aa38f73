// What every request to `trainpkg serve` must satisfy before it is routed
// and before its body is read, checked in this order:
//   Host        one of this server's own addresses (127.0.0.1:P, localhost:P
//               and [::1]:P for a server on 127.0.0.1, localhost or ::1; the
//               bound address otherwise)                  else 403 (DNS rebinding)
//   Origin      absent, or http://<one of those>           else 403 (cross-origin page)
//   Authorization  "Bearer <the instance token>", compared in constant time
//                                                          else 401
//   Content-Encoding  absent or "identity"                 else 415 (nothing is inflated)
//   Transfer-Encoding absent (bodies state their length)   else 411
//   Content-Length    at most max_body_bytes               else 413
//   Content-Type      application/json (parameters such as charset allowed)
//                     when the request has a body          else 415
// A header these checks read that is given twice is a 400. Refusals carry a
// google.rpc.Status body. The token is never read from the query string.
#ifndef TRAINPKG_SDK_SERVE_REQUEST_GUARD_H_
#define TRAINPKG_SDK_SERVE_REQUEST_GUARD_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sdk/serve/local_job_service.h"

namespace trainpkg::sdk::serve {

struct RequestGuardOptions {
  std::string host;   // the address the server is bound to ("::1" without brackets)
  int port = 0;       // the bound port
  std::string token;  // required: the instance's bearer token
  size_t max_body_bytes = 1 << 20;
  // Appended to the 401 message: where a client finds the token.
  std::string token_hint;
};

// The values of one request header, as received (none when absent).
using HeaderValues = std::function<std::vector<std::string>(std::string_view name)>;

// Thread-safe (immutable).
class RequestGuard {
 public:
  explicit RequestGuard(RequestGuardOptions options);

  // nullopt when the request may proceed; otherwise the reply to send.
  std::optional<RestReply> Check(const HeaderValues& headers) const;

  const RequestGuardOptions& options() const { return options_; }

 private:
  std::optional<RestReply> CheckHostAndOrigin(const HeaderValues& headers) const;
  std::optional<RestReply> CheckToken(const HeaderValues& headers) const;
  std::optional<RestReply> CheckBody(const HeaderValues& headers) const;

  const RequestGuardOptions options_;
  std::vector<std::string> hosts_;  // "host:port" forms accepted in Host, lower case
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_REQUEST_GUARD_H_
