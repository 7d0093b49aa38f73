// Time as a seam: code that reads the time or waits reads and sleeps
// through a Clock, so tests run it on a fake one (tests/test_util/
// fake_clock.h) whose sleeps return at once and only move its time.
// Retry backoffs, token expiry, job timestamps and ids, poll loops and the
// trainer's epoch timing all take one.
#ifndef TRAINPKG_BASE_CLOCK_H_
#define TRAINPKG_BASE_CLOCK_H_

#include "absl/time/time.h"

namespace trainpkg::base {

// Implementations are thread-safe: threads may read and sleep on one clock
// at the same time.
class Clock {
 public:
  virtual ~Clock() = default;
  // The current wall-clock time. Not monotonic on the real clock: it jumps
  // when the system time is set.
  virtual absl::Time Now() = 0;
  // Blocks the calling thread for `duration`; a zero or negative duration
  // returns at once.
  virtual void SleepFor(absl::Duration duration) = 0;
};

// The system clock (absl::Now, absl::SleepFor). The returned reference
// lives for the whole program.
Clock& RealClock();

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_CLOCK_H_
