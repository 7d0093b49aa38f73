// gMock matchers for absl::Status and absl::StatusOr<T> that print the status
// when they fail, where a bare EXPECT_TRUE(x.ok()) says only "false":
//
//   ASSERT_THAT(ParseJob(text), IsOk());
//   EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
//   EXPECT_THAT(result, StatusIs(absl::StatusCode::kNotFound, HasSubstr("bucket")));
//
// StatusIs' second argument is a matcher (or a plain string, matched exactly)
// on the message. Both accept a Status or a StatusOr of any type.
#ifndef TRAINPKG_TESTS_TEST_UTIL_STATUS_MATCHERS_H_
#define TRAINPKG_TESTS_TEST_UTIL_STATUS_MATCHERS_H_

#include <ostream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace absl {
// abseil gives StatusOr no operator<< here; without this gtest shows a failed
// StatusOr as raw bytes. An error prints as its status, a value as "OK".
template <typename T>
void PrintTo(const StatusOr<T>& value, std::ostream* os) {
  *os << value.status();
}
}  // namespace absl

namespace trainpkg::testing {
namespace status_internal {

inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& value) {
  return value.status();
}

class IsOkMatcher {
 public:
  template <typename T>
  bool MatchAndExplain(const T& value, ::testing::MatchResultListener* listener) const {
    const absl::Status& status = StatusOf(value);
    if (!status.ok()) *listener << "which is " << status;
    return status.ok();
  }
  void DescribeTo(std::ostream* os) const { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is not OK"; }
};

class StatusIsMatcher {
 public:
  StatusIsMatcher(absl::StatusCode code, ::testing::Matcher<const std::string&> message)
      : code_(code), message_(std::move(message)) {}

  template <typename T>
  bool MatchAndExplain(const T& value, ::testing::MatchResultListener* listener) const {
    const absl::Status& status = StatusOf(value);
    *listener << "which is " << status;
    if (status.code() != code_) return false;
    ::testing::StringMatchResultListener inner;
    if (message_.MatchAndExplain(std::string(status.message()), &inner)) return true;
    if (!inner.str().empty()) *listener << "; the message " << inner.str();
    return false;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "has code " << absl::StatusCodeToString(code_) << " and a message that ";
    message_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "does not have code " << absl::StatusCodeToString(code_) << " or has a message that ";
    message_.DescribeNegationTo(os);
  }

 private:
  absl::StatusCode code_;
  ::testing::Matcher<const std::string&> message_;
};

}  // namespace status_internal

// Matches an OK Status, or a StatusOr holding a value.
inline ::testing::PolymorphicMatcher<status_internal::IsOkMatcher> IsOk() {
  return ::testing::MakePolymorphicMatcher(status_internal::IsOkMatcher());
}

// Matches a status (or a StatusOr's status) with `code` and any message.
inline ::testing::PolymorphicMatcher<status_internal::StatusIsMatcher> StatusIs(
    absl::StatusCode code) {
  return ::testing::MakePolymorphicMatcher(status_internal::StatusIsMatcher(code, ::testing::_));
}

// Matches a status with `code` and a message `message` matches.
template <typename MessageMatcher>
::testing::PolymorphicMatcher<status_internal::StatusIsMatcher> StatusIs(
    absl::StatusCode code, MessageMatcher&& message) {
  return ::testing::MakePolymorphicMatcher(status_internal::StatusIsMatcher(
      code, ::testing::MatcherCast<const std::string&>(std::forward<MessageMatcher>(message))));
}

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_STATUS_MATCHERS_H_
