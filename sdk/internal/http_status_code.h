// The status code of an HTTP reply that carries none of its own, as
// google/rpc/code.proto maps them: shared by the backends that speak HTTP
// APIs (Vertex AI's REST API, the Kubernetes API server).
#ifndef TRAINPKG_SDK_INTERNAL_HTTP_STATUS_CODE_H_
#define TRAINPKG_SDK_INTERNAL_HTTP_STATUS_CODE_H_

#include "absl/status/status.h"

namespace trainpkg::sdk::internal {

// 400 → InvalidArgument, 401 → Unauthenticated, 403 → PermissionDenied,
// 404 → NotFound, 409 → Aborted, 429 → ResourceExhausted, 499 → Cancelled,
// 501 → Unimplemented, 503 → Unavailable, 504 → DeadlineExceeded, other
// 4xx → FailedPrecondition, other 5xx → Internal.
absl::StatusCode CodeForHttpStatus(int http_status);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_HTTP_STATUS_CODE_H_
