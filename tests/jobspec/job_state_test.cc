#include "jobspec/job_state.h"

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

TEST(JobStateTest, NamesAndNumbersRoundTrip) {
  for (int n = 0; n <= 11; ++n) {
    auto state = JobStateFromNumber(n);
    ASSERT_THAT(state, IsOk()) << n;
    EXPECT_EQ(static_cast<int>(*state), n);
    auto again = ParseJobState(JobStateName(*state));
    ASSERT_THAT(again, IsOk());
    EXPECT_EQ(*again, *state);
  }
}

TEST(JobStateTest, ParsesShortNamesAndNumbers) {
  EXPECT_EQ(*ParseJobState("running"), JobState::kRunning);
  EXPECT_EQ(*ParseJobState("JOB_STATE_SUCCEEDED"), JobState::kSucceeded);
  EXPECT_EQ(*ParseJobState("5"), JobState::kFailed);
  EXPECT_EQ(JobStateName(JobState::kCancelled), "JOB_STATE_CANCELLED");
}

TEST(JobStateTest, RejectsUnknown) {
  EXPECT_FALSE(ParseJobState("DONE").ok());
  EXPECT_FALSE(ParseJobState("12").ok());
  EXPECT_FALSE(JobStateFromNumber(-1).ok());
  EXPECT_NE(ParseJobState("DONE").status().message().find("JOB_STATE_QUEUED"), std::string::npos);
}

TEST(JobStateTest, TerminalStates) {
  EXPECT_TRUE(IsTerminal(JobState::kSucceeded));
  EXPECT_TRUE(IsTerminal(JobState::kFailed));
  EXPECT_TRUE(IsTerminal(JobState::kCancelled));
  EXPECT_FALSE(IsTerminal(JobState::kRunning));
  EXPECT_FALSE(IsTerminal(JobState::kCancelling));
  EXPECT_FALSE(IsTerminal(JobState::kQueued));
}

}  // namespace
}  // namespace trainpkg::jobspec
