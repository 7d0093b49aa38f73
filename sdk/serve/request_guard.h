// What every request to `trainpkg serve` must satisfy before it is routed
// and before its body is read, checked in this order:
//   Host        one of this server's own addresses (127.0.0.1:P, localhost:P
//               and [::1]:P for a server on 127.0.0.1, localhost or ::1; the
//               bound address otherwise)                  else 403 (DNS rebinding)
//   Origin      absent, or http://<one of those>           else 403 (cross-origin page)
//   Authorization  "Bearer <the instance token>", compared in constant time
//                                                          else 401
//                  or, for the dashboard's paths only (IsDashboardPath) and
//                  without an Authorization header, the page cookie
//                  (PageCookie) holding the instance's page secret  else 401,
//                  from a page of this origin: Sec-Fetch-Site, when sent,
//                  "same-origin" or "none", and an Origin on any method but
//                  GET and HEAD                           else 403
//   Content-Encoding  absent or "identity"                 else 415 (nothing is inflated)
//   Transfer-Encoding absent (bodies state their length)   else 411
//   Content-Length    at most max_body_bytes               else 413
//   Content-Type      application/json (parameters such as charset allowed)
//                     when the request has a body          else 415
// A header these checks read that is given twice is a 400. Refusals carry a
// google.rpc.Status body. The token is read from a query string only by
// CheckPageToken: the dashboard's first URL, which is answered with the page
// cookie and a redirect to the URL without it
// (docs/adr/2026-11-28-dashboard.md). The cookie opens the dashboard's
// pages and its read-only data and cancel, never the Vertex API, so a page
// can never create a job.
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
  // The value of the dashboard's cookie, as random as the token; "": the
  // dashboard's cookie is never accepted.
  std::string page_secret;
  size_t max_body_bytes = 1 << 20;
  // Appended to the 401 message: where a client finds the token.
  std::string token_hint;
};

// The values of one request header, as received (none when absent).
using HeaderValues = std::function<std::vector<std::string>(std::string_view name)>;

// What a request asks for, besides its headers.
struct RequestTarget {
  std::string_view method = "GET";
  std::string_view path;  // without the query
};

// "/" and "/ui" and everything under "/ui/": the dashboard's pages and data.
bool IsDashboardPath(std::string_view path);

// Thread-safe (immutable).
class RequestGuard {
 public:
  explicit RequestGuard(RequestGuardOptions options);

  // nullopt when the request may proceed; otherwise the reply to send.
  std::optional<RestReply> Check(const HeaderValues& headers,
                                 const RequestTarget& target = {}) const;

  // The dashboard's first request, GET <dashboard path>?token=<token>:
  // nullopt when Host and Origin pass and `token` is the instance's (the
  // caller then answers with PageCookie() and a redirect); else the refusal
  // (403, 401).
  std::optional<RestReply> CheckPageToken(const HeaderValues& headers,
                                          std::string_view token) const;

  // The Set-Cookie value that opens the dashboard: the page secret under a
  // name of this port (cookies are not told apart by port), HttpOnly,
  // SameSite=Strict, Path=/. REQUIRES: options().page_secret is not empty.
  std::string PageCookie() const;

  const RequestGuardOptions& options() const { return options_; }

 private:
  std::optional<RestReply> CheckHostAndOrigin(const HeaderValues& headers) const;
  std::optional<RestReply> CheckToken(const HeaderValues& headers,
                                      const RequestTarget& target) const;
  // The page cookie's checks, for a request without an Authorization header.
  std::optional<RestReply> CheckPageCookie(const HeaderValues& headers,
                                           const RequestTarget& target,
                                           std::string_view cookie) const;
  std::string CookieName() const;
  std::optional<RestReply> CheckBody(const HeaderValues& headers) const;

  const RequestGuardOptions options_;
  std::vector<std::string> hosts_;  // "host:port" forms accepted in Host, lower case
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_REQUEST_GUARD_H_
