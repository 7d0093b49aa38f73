#include "sdk/internal/poll_loop.h"

#include <algorithm>

namespace trainpkg::sdk::internal {

PollLoop::~PollLoop() { Stop(); }

void PollLoop::Start(PollIntervals intervals, std::function<bool()> poll) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
  }
  thread_ = std::thread(&PollLoop::Run, this, intervals, std::move(poll));
}

bool PollLoop::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

void PollLoop::Wake() {
  std::lock_guard<std::mutex> lock(mu_);
  wake_ = true;
  cv_.notify_all();
}

void PollLoop::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done_; });
}

bool PollLoop::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

void PollLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void PollLoop::Run(PollIntervals intervals, std::function<bool()> poll) {
  absl::Duration interval = intervals.initial;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Wake() cuts the wait short (a cancel is seen at once) and Stop() ends
      // it; otherwise the interval grows up to `max`, so a long job costs few polls.
      cv_.wait_for(lock, absl::ToChronoNanoseconds(interval), [this] { return stop_ || wake_; });
      wake_ = false;
      if (stop_) break;
    }
    if (poll()) break;
    interval = std::min(intervals.max, interval * intervals.multiplier);
  }
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

}  // namespace trainpkg::sdk::internal
