#include "tests/test_util/status_matchers.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What a failed EXPECT_THAT would print after "Actual: ...".
template <typename Matcher, typename Value>
std::string Explain(const Matcher& matcher, const Value& value) {
  ::testing::StringMatchResultListener listener;
  ::testing::ExplainMatchResult(matcher, value, &listener);
  return listener.str();
}

TEST(IsOkTest, MatchesOkStatusAndStatusOrWithAValue) {
  EXPECT_THAT(absl::OkStatus(), IsOk());
  EXPECT_THAT(absl::StatusOr<int>(3), IsOk());
  EXPECT_THAT(absl::NotFoundError("gone"), Not(IsOk()));
  EXPECT_THAT(absl::StatusOr<int>(absl::InternalError("broken")), Not(IsOk()));
}

TEST(IsOkTest, AFailureSaysWhichStatusItWas) {
  EXPECT_THAT(Explain(IsOk(), absl::NotFoundError("no blob sha256:ab")),
              HasSubstr("NOT_FOUND: no blob sha256:ab"));
  EXPECT_THAT(Explain(IsOk(), absl::StatusOr<std::string>(absl::UnavailableError("503"))),
              HasSubstr("UNAVAILABLE: 503"));
}

TEST(IsOkTest, AFailedStatusOrPrintsAsItsStatusNotAsBytes) {
  EXPECT_EQ(::testing::PrintToString(absl::StatusOr<int>(absl::AbortedError("stop"))),
            "ABORTED: stop");
}

TEST(StatusIsTest, MatchesTheCode) {
  EXPECT_THAT(absl::InvalidArgumentError("x"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(absl::InvalidArgumentError("x"), Not(StatusIs(absl::StatusCode::kNotFound)));
  EXPECT_THAT(absl::OkStatus(), StatusIs(absl::StatusCode::kOk));
  EXPECT_THAT(absl::StatusOr<int>(absl::NotFoundError("x")),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(StatusIsTest, MatchesTheMessageWithAMatcherOrExactly) {
  const absl::Status status = absl::InvalidArgumentError("machineType: unknown 'n9'");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("machineType")));
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, "machineType: unknown 'n9'"));
  EXPECT_THAT(status, Not(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("replicaCount"))));
  EXPECT_THAT(status, Not(StatusIs(absl::StatusCode::kNotFound, HasSubstr("machineType"))));
}

TEST(StatusIsTest, AFailureSaysWhichStatusItWas) {
  EXPECT_THAT(Explain(StatusIs(absl::StatusCode::kNotFound), absl::InternalError("disk full")),
              HasSubstr("INTERNAL: disk full"));
  EXPECT_THAT(Explain(StatusIs(absl::StatusCode::kNotFound), absl::OkStatus()), HasSubstr("OK"));
}

}  // namespace
}  // namespace trainpkg::testing
