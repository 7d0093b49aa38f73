#include "tests/test_util/fake_clock.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::testing {
namespace {

using ::testing::ElementsAre;

TEST(FakeClockTest, TimeMovesOnlyThroughSleepForAndAdvance) {
  FakeClock clock(absl::FromUnixSeconds(100));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(100));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(100));
  clock.SleepFor(absl::Seconds(3));
  clock.Advance(absl::Seconds(5));
  clock.SleepFor(-absl::Seconds(2));  // like absl::SleepFor: returns, time stays
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(108));
  EXPECT_THAT(clock.sleeps(), ElementsAre(absl::Seconds(3), -absl::Seconds(2)));
}

TEST(FakeClockTest, OnSleepRunsAfterTheTimeMovedAndMayUseTheClock) {
  FakeClock clock(absl::FromUnixSeconds(0));
  std::vector<absl::Time> seen;
  clock.OnSleep([&](absl::Duration d) {
    seen.push_back(clock.Now());
    clock.Advance(d);  // the hook may move the clock: the lock is not held
  });
  clock.SleepFor(absl::Seconds(1));
  clock.SleepFor(absl::Seconds(2));
  EXPECT_THAT(seen, ElementsAre(absl::FromUnixSeconds(1), absl::FromUnixSeconds(4)));
  clock.OnSleep(nullptr);
  clock.SleepFor(absl::Seconds(1));
  EXPECT_EQ(seen.size(), 2u);
}

TEST(FakeClockTest, ThreadsSleepOnOneClock) {
  FakeClock clock(absl::FromUnixSeconds(0));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&clock] {
      for (int i = 0; i < 1000; ++i) clock.SleepFor(absl::Milliseconds(1));
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(4));
  EXPECT_EQ(clock.sleeps().size(), 4000u);
}

}  // namespace
}  // namespace trainpkg::testing
