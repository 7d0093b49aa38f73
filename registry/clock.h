// Time as a seam: the retry loop and the token cache read the time and sleep
// through a Clock so tests can run them on a fake one.
#ifndef TRAINPKG_REGISTRY_CLOCK_H_
#define TRAINPKG_REGISTRY_CLOCK_H_

#include "absl/time/time.h"

namespace trainpkg::registry {

// Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() = 0;
  virtual void SleepFor(absl::Duration duration) = 0;
};

// The wall clock; lives for the whole program.
Clock& RealClock();

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_CLOCK_H_
