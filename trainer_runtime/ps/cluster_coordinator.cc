#include "trainer_runtime/ps/cluster_coordinator.h"

#include <utility>

#include "base/check.h"
#include "base/log.h"
#include "base/status_context.h"
#include "fmt/format.h"

namespace trainpkg::ps {

ClusterCoordinator::ClusterCoordinator(std::vector<std::unique_ptr<StepRunner>> workers,
                                       ResultCallback on_result)
    : workers_(std::move(workers)), on_result_(std::move(on_result)) {
  TP_CHECK(!workers_.empty(), "a coordinator needs at least one worker");
  alive_.assign(workers_.size(), true);
  live_ = static_cast<int>(workers_.size());
  for (size_t i = 0; i < workers_.size(); ++i) threads_.emplace_back([this, i] { Serve(i); });
}

ClusterCoordinator::~ClusterCoordinator() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ClusterCoordinator::Schedule(int64_t step) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(step);
  }
  cv_.notify_all();
}

absl::Status ClusterCoordinator::Join() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !error_.ok() || (queue_.empty() && in_flight_ == 0); });
  return error_;
}

int ClusterCoordinator::live_workers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_;
}

int64_t ClusterCoordinator::rescheduled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rescheduled_;
}

void ClusterCoordinator::ShutdownWorkers() {
  for (size_t i = 0; i < workers_.size(); ++i) {
    bool alive;
    {
      std::lock_guard<std::mutex> lock(mu_);
      alive = alive_[i];
    }
    if (!alive) continue;
    absl::Status s = workers_[i]->Shutdown();
    if (!s.ok()) TP_LOG(WARNING, "shutting down {}: {}", workers_[i]->name(), s.ToString());
  }
}

void ClusterCoordinator::Serve(size_t worker) {
  StepRunner& runner = *workers_[worker];
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stopping_ || !error_.ok() || !queue_.empty(); });
    if (stopping_ || !error_.ok()) return;
    const int64_t step = queue_.front();
    queue_.pop_front();
    ++in_flight_;
    lock.unlock();
    absl::StatusOr<StepResult> result = runner.RunStep(step);
    lock.lock();
    --in_flight_;
    if (result.ok()) {
      if (on_result_) on_result_(step, *result);
    // Only a lost worker is retired and its step run elsewhere. A ps that is
    // unreachable reaches the chief as Aborted (VariableClient), and any other
    // error would fail on every worker alike, so both end the job.
    } else if (absl::IsUnavailable(result.status()) || absl::IsDeadlineExceeded(result.status())) {
      alive_[worker] = false;
      --live_;
      // At the front, so steps still run close to their order.
      queue_.push_front(step);
      ++rescheduled_;
      TP_LOG(WARNING, "{} failed during step {} ({}); {} worker(s) left, the step is rescheduled",
             runner.name(), step, std::string(result.status().message()), live_);
      if (live_ == 0 && error_.ok()) {
        error_ = absl::UnavailableError(fmt::format("every worker has failed; the last, {}: {}",
                                                    runner.name(),
                                                    std::string(result.status().message())));
      }
      cv_.notify_all();
      return;
    } else if (error_.ok()) {
      error_ =
          base::WithContext(result.status(), fmt::format("step {} on {}", step, runner.name()));
    }
    cv_.notify_all();
  }
}

}  // namespace trainpkg::ps
