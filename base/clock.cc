#include "base/clock.h"

#include "absl/time/clock.h"

namespace trainpkg::base {
namespace {

class SystemClock final : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
  void SleepFor(absl::Duration duration) override { absl::SleepFor(duration); }
};

}  // namespace

Clock& RealClock() {
  // Never destroyed, so threads still sleeping at exit never see it die.
  static SystemClock* const clock = new SystemClock();
  return *clock;
}

}  // namespace trainpkg::base
