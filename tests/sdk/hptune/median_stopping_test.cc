#include "sdk/hptune/median_stopping.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::sdk::hptune {
namespace {

using jobspec::GoalType;
using ::testing::HasSubstr;

// Completed trials' running averages at step 2: (0.5+0.7)/2=0.6, (0.3+0.5)/2=0.4,
// (0.8+0.9)/2=0.85; median 0.6.
const std::vector<Curve> kCompleted = {
    {{1, 0.5}, {2, 0.7}, {3, 0.9}},
    {{1, 0.3}, {2, 0.5}, {3, 0.6}},
    {{1, 0.8}, {2, 0.9}, {3, 0.95}},
};

TEST(MedianStoppingTest, StopsATrialWhoseBestIsBelowTheMedianOfRunningAverages) {
  StoppingDecision decision =
      MedianStoppingDecision({{1, 0.55}, {2, 0.58}}, kCompleted, GoalType::kMaximize);
  EXPECT_TRUE(decision.stop);
  EXPECT_THAT(decision.reason,
              HasSubstr("best objective 0.58 up to 2 is worse than the median 0.6 of the running "
                        "averages of 3 completed trials"));
}

TEST(MedianStoppingTest, KeepsATrialWhoseBestReachesTheMedian) {
  // Its best (0.6) equals the median: not strictly worse.
  EXPECT_FALSE(MedianStoppingDecision({{1, 0.6}, {2, 0.2}}, kCompleted, GoalType::kMaximize).stop);
  EXPECT_FALSE(MedianStoppingDecision({{1, 0.2}, {2, 0.61}}, kCompleted, GoalType::kMaximize).stop);
}

TEST(MedianStoppingTest, UsesOnlyPointsUpToTheTrialsLatestPoint) {
  // At step 1 the running averages are the first values: 0.5, 0.3, 0.8 -> median 0.5.
  EXPECT_FALSE(MedianStoppingDecision({{1, 0.52}}, kCompleted, GoalType::kMaximize).stop);
  EXPECT_TRUE(MedianStoppingDecision({{1, 0.45}}, kCompleted, GoalType::kMaximize).stop);
}

TEST(MedianStoppingTest, MinimizeFlipsWorse) {
  // Loss: lower is better. Median of running averages at step 2 is 0.6.
  EXPECT_TRUE(MedianStoppingDecision({{1, 0.9}, {2, 0.65}}, kCompleted, GoalType::kMinimize).stop);
  EXPECT_FALSE(MedianStoppingDecision({{1, 0.9}, {2, 0.55}}, kCompleted, GoalType::kMinimize).stop);
}

TEST(MedianStoppingTest, WaitsForEnoughCompletedTrials) {
  const std::vector<Curve> two(kCompleted.begin(), kCompleted.begin() + 2);
  EXPECT_FALSE(MedianStoppingDecision({{1, 0.0}}, two, GoalType::kMaximize).stop);
  EXPECT_TRUE(MedianStoppingDecision({{1, 0.0}}, two, GoalType::kMaximize, 2).stop);
  // Completed trials with nothing at or before the point do not count.
  const std::vector<Curve> late = {{{5, 1.0}}, {{5, 1.0}}, {{5, 1.0}}};
  EXPECT_FALSE(MedianStoppingDecision({{1, 0.0}}, late, GoalType::kMaximize).stop);
  EXPECT_FALSE(MedianStoppingDecision({}, kCompleted, GoalType::kMaximize).stop);
}

TEST(MedianStoppingTest, CurvesComeFromStepsOrElapsedTime) {
  std::vector<jobspec::Measurement> measurements = {
      {absl::Seconds(10), 100, {{"accuracy", 0.5}}},
      {std::nullopt, 200, {{"accuracy", 0.6}}},
      {absl::Seconds(30), 300, {{"loss", 0.1}}},
  };
  Curve by_step = CurveFromMeasurements(measurements, "accuracy", false);
  ASSERT_EQ(by_step.size(), 2u);
  EXPECT_EQ(by_step[1].at, 200);
  EXPECT_EQ(by_step[1].objective, 0.6);
  Curve by_time = CurveFromMeasurements(measurements, "accuracy", true);
  ASSERT_EQ(by_time.size(), 1u);
  EXPECT_EQ(by_time[0].at, 10);
}

}  // namespace
}  // namespace trainpkg::sdk::hptune
