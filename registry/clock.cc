#include "registry/clock.h"

#include "absl/time/clock.h"

namespace trainpkg::registry {
namespace {

class WallClock final : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
  void SleepFor(absl::Duration duration) override { absl::SleepFor(duration); }
};

}  // namespace

Clock& RealClock() {
  static WallClock* const clock = new WallClock();
  return *clock;
}

}  // namespace trainpkg::registry
