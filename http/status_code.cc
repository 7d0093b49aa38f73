#include "http/status_code.h"

#include "http/retry_transport.h"

namespace trainpkg::http {
namespace {

absl::StatusCode CodeForServerError(int http_status, ServerErrors server_errors) {
  if (server_errors == ServerErrors::kTransient && IsRetryableHttpStatus(http_status)) {
    return absl::StatusCode::kUnavailable;
  }
  switch (http_status) {
    case 501:
      return absl::StatusCode::kUnimplemented;
    case 503:
      return absl::StatusCode::kUnavailable;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

absl::StatusCode CodeForHttpStatus(int http_status, ServerErrors server_errors) {
  switch (http_status) {
    case 400:
    case 405:
    case 413:
    // 416 answers a chunk that does not start where an upload session ends;
    // the registry client then asks where it stands (registry/blob_upload.cc).
    case 416:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 408:
      return absl::StatusCode::kDeadlineExceeded;
    // code.proto gives 409 to both ABORTED and ALREADY_EXISTS; an error body's
    // status, where there is one, says which.
    case 409:
      return absl::StatusCode::kAborted;
    // Throttled: callers wait (Retry-After) and try again.
    case 429:
      return absl::StatusCode::kResourceExhausted;
    // Not a standard status: Google's front ends answer it for a client
    // that went away (code.proto).
    case 499:
      return absl::StatusCode::kCancelled;
    default:
      break;
  }
  if (http_status >= 400 && http_status < 500) return absl::StatusCode::kFailedPrecondition;
  if (http_status >= 500 && http_status < 600) return CodeForServerError(http_status, server_errors);
  return absl::StatusCode::kUnknown;
}

}  // namespace trainpkg::http
