#include "base/grpc_status.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::base {
namespace {

TEST(GrpcStatusTest, OkCrossesAsOk) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
  EXPECT_THAT(FromGrpcStatus(grpc::Status::OK), IsOk());
}

TEST(GrpcStatusTest, EveryCodeCrossesToItsNamesakeWithTheMessage) {
  const std::vector<std::pair<absl::StatusCode, grpc::StatusCode>> codes = {
      {absl::StatusCode::kCancelled, grpc::StatusCode::CANCELLED},
      {absl::StatusCode::kUnknown, grpc::StatusCode::UNKNOWN},
      {absl::StatusCode::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
      {absl::StatusCode::kDeadlineExceeded, grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::StatusCode::kNotFound, grpc::StatusCode::NOT_FOUND},
      {absl::StatusCode::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {absl::StatusCode::kPermissionDenied, grpc::StatusCode::PERMISSION_DENIED},
      {absl::StatusCode::kResourceExhausted, grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::StatusCode::kFailedPrecondition, grpc::StatusCode::FAILED_PRECONDITION},
      {absl::StatusCode::kAborted, grpc::StatusCode::ABORTED},
      {absl::StatusCode::kOutOfRange, grpc::StatusCode::OUT_OF_RANGE},
      {absl::StatusCode::kUnimplemented, grpc::StatusCode::UNIMPLEMENTED},
      {absl::StatusCode::kInternal, grpc::StatusCode::INTERNAL},
      {absl::StatusCode::kUnavailable, grpc::StatusCode::UNAVAILABLE},
      {absl::StatusCode::kDataLoss, grpc::StatusCode::DATA_LOSS},
      {absl::StatusCode::kUnauthenticated, grpc::StatusCode::UNAUTHENTICATED},
  };
  for (const auto& [absl_code, grpc_code] : codes) {
    const grpc::Status sent = ToGrpcStatus(absl::Status(absl_code, "rank 3: key x"));
    EXPECT_EQ(sent.error_code(), grpc_code) << absl::StatusCodeToString(absl_code);
    EXPECT_EQ(sent.error_message(), "rank 3: key x");
    const absl::Status received = FromGrpcStatus(grpc::Status(grpc_code, "ps 0: gone"));
    EXPECT_EQ(received, absl::Status(absl_code, "ps 0: gone"));
  }
}

}  // namespace
}  // namespace trainpkg::base
