#include "sdk/internal/http_status_code.h"

namespace trainpkg::sdk::internal {

absl::StatusCode CodeForHttpStatus(int http_status) {
  // The HTTP mapping google.rpc.Code documents (code.proto); 409 serves both
  // ABORTED and ALREADY_EXISTS, and an error body's status says which.
  switch (http_status) {
    case 400:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 409:
      return absl::StatusCode::kAborted;
    case 429:
      return absl::StatusCode::kResourceExhausted;
    case 499:
      return absl::StatusCode::kCancelled;
    case 501:
      return absl::StatusCode::kUnimplemented;
    case 503:
      return absl::StatusCode::kUnavailable;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return http_status >= 400 && http_status < 500 ? absl::StatusCode::kFailedPrecondition
                                                     : absl::StatusCode::kInternal;
  }
}

}  // namespace trainpkg::sdk::internal
