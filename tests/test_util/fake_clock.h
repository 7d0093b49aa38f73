// A base::Clock for tests: its time stands still until SleepFor or Advance
// moves it, so code that waits (retry backoffs, poll loops, idle timeouts)
// runs at once and reads the same times on every run.
#ifndef TRAINPKG_TESTS_TEST_UTIL_FAKE_CLOCK_H_
#define TRAINPKG_TESTS_TEST_UTIL_FAKE_CLOCK_H_

#include <functional>
#include <mutex>
#include <vector>

#include "absl/time/time.h"
#include "base/clock.h"

namespace trainpkg::testing {

// Thread-safe: pushes and pulls sleep on one clock from their blob threads.
class FakeClock : public base::Clock {
 public:
  // The time Now() returns until something moves it.
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1800000000)) : now_(start) {}

  absl::Time Now() override;
  // Records `duration`, moves Now() on by it (not back for a negative one)
  // and then runs the OnSleep hook, on the sleeping thread, without holding
  // the clock's lock (the hook may read or move the clock).
  void SleepFor(absl::Duration duration) override;

  // Moves Now() on by `duration` without counting a sleep.
  void Advance(absl::Duration duration);
  // Every SleepFor's duration, in call order.
  std::vector<absl::Duration> sleeps() const;
  // Runs `hook` after every later SleepFor: how a test changes the world
  // while the code under test waits (writes the next checkpoint, ends a
  // trial). nullptr removes it.
  void OnSleep(std::function<void(absl::Duration)> hook);

 private:
  mutable std::mutex mu_;
  absl::Time now_;
  std::vector<absl::Duration> sleeps_;
  std::function<void(absl::Duration)> on_sleep_;
};

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_FAKE_CLOCK_H_
