#include "trainer_runtime/ps/cluster_coordinator.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

using ::testing::HasSubstr;

// A worker that runs steps in process; it fails with `failure` from the
// step `fail_at` on (once it has seen that many steps).
class FakeWorker final : public StepRunner {
 public:
  FakeWorker(std::string name, int fail_after, absl::Status failure,
             absl::Notification* wait_for = nullptr, absl::Notification* on_failure = nullptr)
      : name_(std::move(name)),
        fail_after_(fail_after),
        failure_(std::move(failure)),
        wait_for_(wait_for),
        on_failure_(on_failure) {}
  const std::string& name() const override { return name_; }
  absl::StatusOr<StepResult> RunStep(int64_t step) override {
    if (wait_for_ != nullptr) wait_for_->WaitForNotification();
    if (fail_after_ >= 0 && calls_++ >= fail_after_) {
      if (on_failure_ != nullptr && !on_failure_->HasBeenNotified()) on_failure_->Notify();
      return failure_;
    }
    std::lock_guard<std::mutex> lock(mu_);
    ran_.insert(step);
    return StepResult{1.0, 1, 2};
  }
  absl::Status Shutdown() override {
    shutdown_ = true;
    return absl::OkStatus();
  }
  std::set<int64_t> ran() {
    std::lock_guard<std::mutex> lock(mu_);
    return ran_;
  }
  bool shut_down() const { return shutdown_; }

 private:
  std::string name_;
  int fail_after_;
  absl::Status failure_;
  absl::Notification* wait_for_;
  absl::Notification* on_failure_;
  std::atomic<int> calls_{0};
  std::mutex mu_;
  std::set<int64_t> ran_;
  std::atomic<bool> shutdown_{false};
};

struct Results {
  std::mutex mu;
  std::map<int64_t, int> count;
};

TEST(ClusterCoordinatorTest, RunsEveryStepOnAnyWorker) {
  std::vector<std::unique_ptr<StepRunner>> workers;
  workers.push_back(std::make_unique<FakeWorker>("worker 0", -1, absl::OkStatus()));
  workers.push_back(std::make_unique<FakeWorker>("worker 1", -1, absl::OkStatus()));
  Results results;
  ClusterCoordinator coordinator(std::move(workers), [&](int64_t step, const StepResult&) {
    std::lock_guard<std::mutex> lock(results.mu);
    ++results.count[step];
  });
  for (int64_t s = 0; s < 50; ++s) coordinator.Schedule(s);
  ASSERT_THAT(coordinator.Join(), IsOk());
  EXPECT_EQ(results.count.size(), 50u);
  EXPECT_EQ(coordinator.rescheduled(), 0);
}

TEST(ClusterCoordinatorTest, AFailedWorkersStepIsRescheduledAndTrainingGoesOn) {
  // The healthy worker starts once the other has failed its first step, so
  // the failure always happens with steps left.
  absl::Notification failed;
  auto* dying =
      new FakeWorker("worker 0", 0, absl::UnavailableError("connection reset"), nullptr, &failed);
  auto* healthy = new FakeWorker("worker 1", -1, absl::OkStatus(), &failed);
  std::vector<std::unique_ptr<StepRunner>> workers;
  workers.emplace_back(dying);
  workers.emplace_back(healthy);
  Results results;
  ClusterCoordinator coordinator(std::move(workers), [&](int64_t step, const StepResult&) {
    std::lock_guard<std::mutex> lock(results.mu);
    ++results.count[step];
  });
  for (int64_t s = 0; s < 40; ++s) coordinator.Schedule(s);
  ASSERT_THAT(coordinator.Join(), IsOk());
  EXPECT_EQ(results.count.size(), 40u);  // every step finished once
  EXPECT_EQ(coordinator.rescheduled(), 1);
  EXPECT_EQ(coordinator.live_workers(), 1);
  EXPECT_TRUE(dying->ran().empty());
  EXPECT_EQ(healthy->ran().size(), 40u);
  coordinator.ShutdownWorkers();
  EXPECT_TRUE(healthy->shut_down());
  EXPECT_FALSE(dying->shut_down());
}

TEST(ClusterCoordinatorTest, AStepErrorFailsTheJobNamingStepAndWorker) {
  std::vector<std::unique_ptr<StepRunner>> workers;
  workers.push_back(std::make_unique<FakeWorker>(
      "worker 0 (127.0.0.1:1)", 2, absl::AbortedError("ps 1 (127.0.0.1:2) unreachable: down")));
  ClusterCoordinator coordinator(std::move(workers), nullptr);
  for (int64_t s = 0; s < 10; ++s) coordinator.Schedule(s);
  absl::Status status = coordinator.Join();
  EXPECT_EQ(status.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("step 2 on worker 0 (127.0.0.1:1): ps 1 (127.0.0.1:2) unreachable"));
}

TEST(ClusterCoordinatorTest, EveryWorkerFailedIsUnavailable) {
  std::vector<std::unique_ptr<StepRunner>> workers;
  workers.push_back(
      std::make_unique<FakeWorker>("worker 0", 0, absl::DeadlineExceededError("deadline")));
  workers.push_back(std::make_unique<FakeWorker>("worker 1", 1, absl::UnavailableError("gone")));
  ClusterCoordinator coordinator(std::move(workers), nullptr);
  for (int64_t s = 0; s < 10; ++s) coordinator.Schedule(s);
  absl::Status status = coordinator.Join();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(status.message()), HasSubstr("every worker has failed"));
}

}  // namespace
}  // namespace trainpkg::ps
