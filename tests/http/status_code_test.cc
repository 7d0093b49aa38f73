#include "http/status_code.h"

#include "gtest/gtest.h"

namespace trainpkg::http {
namespace {

using absl::StatusCode;

TEST(StatusCodeTest, ClientErrorsAreTheSameForEveryCaller) {
  for (ServerErrors server_errors : {ServerErrors::kAsGoogleApis, ServerErrors::kTransient}) {
    EXPECT_EQ(CodeForHttpStatus(400, server_errors), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeForHttpStatus(401, server_errors), StatusCode::kUnauthenticated);
    EXPECT_EQ(CodeForHttpStatus(403, server_errors), StatusCode::kPermissionDenied);
    EXPECT_EQ(CodeForHttpStatus(404, server_errors), StatusCode::kNotFound);
    EXPECT_EQ(CodeForHttpStatus(405, server_errors), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeForHttpStatus(408, server_errors), StatusCode::kDeadlineExceeded);
    EXPECT_EQ(CodeForHttpStatus(409, server_errors), StatusCode::kAborted);
    EXPECT_EQ(CodeForHttpStatus(410, server_errors), StatusCode::kFailedPrecondition);
    EXPECT_EQ(CodeForHttpStatus(413, server_errors), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeForHttpStatus(416, server_errors), StatusCode::kInvalidArgument);
    EXPECT_EQ(CodeForHttpStatus(429, server_errors), StatusCode::kResourceExhausted);
    EXPECT_EQ(CodeForHttpStatus(499, server_errors), StatusCode::kCancelled);
    EXPECT_EQ(CodeForHttpStatus(501, server_errors), StatusCode::kUnimplemented);
    EXPECT_EQ(CodeForHttpStatus(505, server_errors), StatusCode::kInternal);
    EXPECT_EQ(CodeForHttpStatus(302, server_errors), StatusCode::kUnknown);
    EXPECT_EQ(CodeForHttpStatus(600, server_errors), StatusCode::kUnknown);
  }
}

TEST(StatusCodeTest, ServerErrorsAsGoogleApisMapThem) {
  EXPECT_EQ(CodeForHttpStatus(500, ServerErrors::kAsGoogleApis), StatusCode::kInternal);
  EXPECT_EQ(CodeForHttpStatus(502, ServerErrors::kAsGoogleApis), StatusCode::kInternal);
  EXPECT_EQ(CodeForHttpStatus(503, ServerErrors::kAsGoogleApis), StatusCode::kUnavailable);
  EXPECT_EQ(CodeForHttpStatus(504, ServerErrors::kAsGoogleApis), StatusCode::kDeadlineExceeded);
}

// A registry's 500 or 502 mid-push: the upload starts a new session, which
// it does on Unavailable.
TEST(StatusCodeTest, TransientServerErrorsAreUnavailable) {
  for (int status : {500, 502, 503, 504, 507, 599}) {
    EXPECT_EQ(CodeForHttpStatus(status, ServerErrors::kTransient), StatusCode::kUnavailable)
        << status;
  }
}

}  // namespace
}  // namespace trainpkg::http
