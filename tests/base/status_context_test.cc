#include "base/status_context.h"

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::base {
namespace {

using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

constexpr char kFailureUrl[] = "trainpkg.test/transport-failure";
constexpr char kRetryAfterUrl[] = "trainpkg.test/retry-after";

absl::Status WithPayloads() {
  absl::Status status = absl::UnavailableError("HTTP 503: slow down");
  status.SetPayload(kFailureUrl, absl::Cord("3"));
  status.SetPayload(kRetryAfterUrl, absl::Cord("120"));
  return status;
}

std::optional<std::string> Payload(const absl::Status& status, absl::string_view url) {
  auto payload = status.GetPayload(url);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

TEST(WithContextTest, PutsTheContextInFrontAndKeepsTheCode) {
  EXPECT_THAT(WithContext(absl::NotFoundError("no such blob"), "pulling app:v1"),
              StatusIs(absl::StatusCode::kNotFound, "pulling app:v1: no such blob"));
}

TEST(WithContextTest, KeepsEveryPayload) {
  absl::Status wrapped = WithContext(WithContext(WithPayloads(), "pushing blob"), "pushing app");
  EXPECT_THAT(wrapped, StatusIs(absl::StatusCode::kUnavailable,
                                "pushing app: pushing blob: HTTP 503: slow down"));
  EXPECT_EQ(Payload(wrapped, kFailureUrl), "3");
  EXPECT_EQ(Payload(wrapped, kRetryAfterUrl), "120");
}

TEST(WithContextTest, AnOkStatusStaysOk) {
  EXPECT_THAT(WithContext(absl::OkStatus(), "anything"), IsOk());
}

absl::Status ReturnIfError(const absl::Status& inner, int* context_built) {
  TP_RETURN_IF_ERROR_WITH_CONTEXT(inner, (++*context_built, "tagging v1"));
  return absl::OkStatus();
}

TEST(WithContextMacroTest, ReturnIfErrorAddsContextAndKeepsPayloads) {
  int context_built = 0;
  absl::Status status = ReturnIfError(WithPayloads(), &context_built);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kUnavailable, "tagging v1: HTTP 503: slow down"));
  EXPECT_EQ(Payload(status, kRetryAfterUrl), "120");
  EXPECT_EQ(context_built, 1);
}

TEST(WithContextMacroTest, TheContextIsOnlyBuiltForAnError) {
  int context_built = 0;
  EXPECT_THAT(ReturnIfError(absl::OkStatus(), &context_built), IsOk());
  EXPECT_EQ(context_built, 0);
}

absl::StatusOr<int> Doubled(absl::StatusOr<int> input) {
  TP_ASSIGN_OR_RETURN_WITH_CONTEXT(int value, std::move(input), "reading the count");
  return 2 * value;
}

TEST(WithContextMacroTest, AssignOrReturnAssignsOrAddsContext) {
  EXPECT_EQ(Doubled(21).value_or(0), 42);
  absl::StatusOr<int> failed = Doubled(WithPayloads());
  EXPECT_THAT(failed,
              StatusIs(absl::StatusCode::kUnavailable, "reading the count: HTTP 503: slow down"));
  EXPECT_EQ(Payload(failed.status(), kFailureUrl), "3");
}

}  // namespace
}  // namespace trainpkg::base
