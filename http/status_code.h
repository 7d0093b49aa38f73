// The absl::StatusCode of an HTTP error reply that carries no code of its
// own: one table for every client (the registry, Vertex AI's REST API, the
// Kubernetes API server).
//
//   absl::Status status(http::CodeForHttpStatus(response.status, http::ServerErrors::kTransient),
//                       message);
//
// google/rpc/code.proto's HTTP mapping where it names the status, and the
// statuses a registry sends beyond it (distribution's spec): 405, 413 and 416
// (a request the server will not take as formed) are InvalidArgument, 408 is
// DeadlineExceeded. Callers differ only in what a server error means to them,
// chosen with ServerErrors.
#ifndef TRAINPKG_HTTP_STATUS_CODE_H_
#define TRAINPKG_HTTP_STATUS_CODE_H_

#include "absl/status/status.h"

namespace trainpkg::http {

enum class ServerErrors {
  // As code.proto: 501 Unimplemented, 503 Unavailable, 504 DeadlineExceeded,
  // any other 5xx Internal. For APIs whose clients retry by their own rules.
  kAsGoogleApis,
  // Every 5xx the retry rule retries (IsRetryableHttpStatus: all but 501
  // and 505) is Unavailable: a caller that starts over on Unavailable (a
  // blob upload takes a new session) does so after any of them.
  kTransient,
};

// 400, 405, 413, 416 → InvalidArgument; 401 → Unauthenticated;
// 403 → PermissionDenied; 404 → NotFound; 408 → DeadlineExceeded;
// 409 → Aborted; 429 → ResourceExhausted; 499 → Cancelled; other 4xx →
// FailedPrecondition; 5xx as `server_errors` says; anything else Unknown.
absl::StatusCode CodeForHttpStatus(int http_status, ServerErrors server_errors);

}  // namespace trainpkg::http

#endif  // TRAINPKG_HTTP_STATUS_CODE_H_
