#include "tests/test_util/fake_clock.h"

#include <algorithm>
#include <utility>

namespace trainpkg::testing {

absl::Time FakeClock::Now() {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

void FakeClock::SleepFor(absl::Duration duration) {
  std::function<void(absl::Duration)> hook;
  {
    std::lock_guard<std::mutex> lock(mu_);
    sleeps_.push_back(duration);
    now_ += std::max(duration, absl::ZeroDuration());
    hook = on_sleep_;
  }
  if (hook) hook(duration);
}

void FakeClock::Advance(absl::Duration duration) {
  std::lock_guard<std::mutex> lock(mu_);
  now_ += duration;
}

std::vector<absl::Duration> FakeClock::sleeps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sleeps_;
}

void FakeClock::OnSleep(std::function<void(absl::Duration)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  on_sleep_ = std::move(hook);
}

}  // namespace trainpkg::testing
