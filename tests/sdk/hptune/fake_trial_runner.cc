#include "tests/sdk/hptune/fake_trial_runner.h"

#include <filesystem>
#include <fstream>

#include "fmt/format.h"

namespace trainpkg::sdk::hptune::testing {

struct FakeTrialRunner::State {
  jobspec::CustomJob job;
  TrialScript script;
  std::filesystem::path metric_file;
  std::string metric_id;
  size_t next = 0;
  bool cancel = false;
};

namespace {

class FakeTrial final : public RunningTrial {
 public:
  FakeTrial(std::shared_ptr<FakeTrialRunner::State> state, std::mutex* mu)
      : state_(std::move(state)), mu_(mu) {}
  jobspec::CustomJob Job() const override {
    std::lock_guard lock(*mu_);
    return state_->job;
  }
  void Cancel() override {
    std::lock_guard lock(*mu_);
    if (!jobspec::IsTerminal(state_->job.state)) state_->cancel = true;
  }
  jobspec::CustomJob Wait() override {
    std::lock_guard lock(*mu_);
    if (!jobspec::IsTerminal(state_->job.state)) {
      state_->job.state = jobspec::JobState::kCancelled;
    }
    return state_->job;
  }

 private:
  std::shared_ptr<FakeTrialRunner::State> state_;
  std::mutex* mu_;
};

std::string EnvValue(const jobspec::CustomJob& job, std::string_view name) {
  for (const jobspec::EnvVar& var : job.job_spec.worker_pool_specs.front().container_spec->env) {
    if (var.name == name) return var.value;
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<RunningTrial>> FakeTrialRunner::Start(
    const jobspec::CustomJob& job) {
  std::lock_guard lock(mu_);
  auto state = std::make_shared<State>();
  state->job = job;
  state->job.name = fmt::format("projects/p/locations/l/customJobs/{}", started_.size() + 1);
  state->job.state = jobspec::JobState::kRunning;
  state->script = script_(job, static_cast<int>(started_.size()) + 1);
  state->metric_file = EnvValue(job, "CLOUD_ML_HP_METRIC_FILE");
  state->metric_id = EnvValue(job, "CLOUD_ML_HP_METRIC_TAG");
  started_.push_back(job);
  trials_.push_back(state);
  int running = 0;
  for (const auto& trial : trials_) {
    if (!jobspec::IsTerminal(trial->job.state)) ++running;
  }
  max_running_ = std::max(max_running_, running);
  return std::make_unique<FakeTrial>(state, &mu_);
}

void FakeTrialRunner::Tick() {
  std::lock_guard lock(mu_);
  for (const auto& trial : trials_) {
    if (jobspec::IsTerminal(trial->job.state)) continue;
    if (trial->cancel) {
      trial->job.state = jobspec::JobState::kCancelled;
      trial->job.error = jobspec::RpcStatus{.code = 1, .message = "CANCELLED"};
      continue;
    }
    if (trial->next < trial->script.values.size()) {
      std::filesystem::create_directories(trial->metric_file.parent_path());
      std::ofstream(trial->metric_file, std::ios::app) << fmt::format(
          "{{\"checkpoint_path\": \"\", \"global_step\": \"{}\", \"{}\": \"{}\", "
          "\"timestamp\": 1700000000.5, \"trial\": \"x\"}}\n",
          trial->next + 1, trial->metric_id, trial->script.values[trial->next]);
      ++trial->next;
      continue;
    }
    if (trial->script.fail) {
      trial->job.state = jobspec::JobState::kFailed;
      trial->job.error = jobspec::RpcStatus{
          .code = 3, .message = "The replica workerpool0-0 exited with a non-zero status of 1."};
    } else {
      trial->job.state = jobspec::JobState::kSucceeded;
    }
  }
}

int FakeTrialRunner::max_running() const {
  std::lock_guard lock(mu_);
  return max_running_;
}

int FakeTrialRunner::cancelled() const {
  std::lock_guard lock(mu_);
  int count = 0;
  for (const auto& trial : trials_) {
    if (trial->job.state == jobspec::JobState::kCancelled) ++count;
  }
  return count;
}

std::vector<jobspec::CustomJob> FakeTrialRunner::started_jobs() const {
  std::lock_guard lock(mu_);
  return started_;
}

}  // namespace trainpkg::sdk::hptune::testing
