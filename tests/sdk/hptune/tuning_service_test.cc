#include "sdk/hptune/tuning_service.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/hptune/fake_trial_runner.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::hptune {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeTrialRunner;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TrialScript;

jobspec::HyperparameterTuningJob Study(int max_trials, int parallel) {
  jobspec::HyperparameterTuningJob job;
  job.display_name = "study";
  job.max_trial_count = max_trials;
  job.parallel_trial_count = parallel;
  job.study_spec.metrics.push_back({.metric_id = "accuracy", .goal = jobspec::GoalType::kMaximize});
  job.study_spec.parameters.push_back(
      {"lr", jobspec::DoubleValueSpec{1e-3, 1.0, {}}, jobspec::ScaleType::kLog, {}});
  job.study_spec.algorithm = jobspec::SearchAlgorithm::kRandomSearch;
  jobspec::WorkerPoolSpec pool;
  pool.replica_count = 1;
  pool.machine_spec = jobspec::MachineSpec{};
  pool.machine_spec->machine_type = "n1-standard-4";
  pool.container_spec = jobspec::ContainerSpec{};
  pool.container_spec->image_uri = "local:/bin/true";
  pool.container_spec->args = {"--epochs=3"};
  job.trial_job_spec.worker_pool_specs.push_back(pool);
  return job;
}

class TuningServiceTest : public ::testing::Test {
 protected:
  absl::StatusOr<jobspec::HyperparameterTuningJob> RunStudy(
      const jobspec::HyperparameterTuningJob& job,
      std::function<TrialScript(const jobspec::CustomJob&, int)> script,
      std::function<void(TuningServiceOptions&)> configure = nullptr) {
    runner_ = std::make_shared<FakeTrialRunner>(std::move(script));
    TuningServiceOptions options;
    options.runner = runner_;
    options.base_output_dir = dir_.path() / "study";
    options.seed = 7;
    clock_.OnSleep([this](absl::Duration) { runner_->Tick(); });
    options.clock = &clock_;
    options.on_update = [this](const jobspec::HyperparameterTuningJob&) { ++updates_; };
    if (configure) configure(options);
    TuningService service(std::move(options));
    return service.Run(job);
  }

  sdk::testing::TempDir dir_;
  trainpkg::testing::FakeClock clock_;
  std::shared_ptr<FakeTrialRunner> runner_;
  int updates_ = 0;
};

TEST_F(TuningServiceTest, RunsMaxTrialsNeverMoreThanParallelAtOnce) {
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(Study(5, 2), [](const jobspec::CustomJob&, int n) {
        return TrialScript{.values = {0.1 * n, 0.1 * n + 0.05}};
      });
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  ASSERT_EQ(done->trials.size(), 5u);
  EXPECT_EQ(runner_->max_running(), 2);
  for (const jobspec::Trial& trial : done->trials) {
    EXPECT_EQ(trial.state, jobspec::TrialState::kSucceeded) << trial.id;
    EXPECT_EQ(trial.measurements.size(), 2u) << trial.id;
    ASSERT_TRUE(trial.final_measurement.has_value());
    EXPECT_EQ(trial.final_measurement->step_count, 2);  // LAST by default
    EXPECT_THAT(trial.custom_job, StartsWith("projects/p/locations/l/customJobs/"));
  }
  EXPECT_GT(updates_, 5);
}

TEST_F(TuningServiceTest, TrialJobsGetArgsEnvAndOutputDir) {
  absl::StatusOr<jobspec::HyperparameterTuningJob> done = RunStudy(
      Study(2, 1), [](const jobspec::CustomJob&, int) { return TrialScript{.values = {0.5}}; });
  ASSERT_THAT(done, IsOk());
  const std::vector<jobspec::CustomJob> jobs = runner_->started_jobs();
  ASSERT_EQ(jobs.size(), 2u);
  const jobspec::ContainerSpec& container = *jobs[1].job_spec.worker_pool_specs[0].container_spec;
  ASSERT_EQ(container.args.size(), 2u);
  EXPECT_EQ(container.args[0], "--epochs=3");
  EXPECT_THAT(container.args[1], StartsWith("--lr=0."));
  EXPECT_THAT(container.env, Contains(jobspec::EnvVar{"CLOUD_ML_TRIAL_ID", "2"}));
  EXPECT_THAT(container.env,
              Contains(jobspec::EnvVar{
                  "CLOUD_ML_HP_METRIC_FILE",
                  (dir_.path() / "study" / "2" / "hypertune" / "output.metrics").string()}));
  EXPECT_EQ(jobs[1].job_spec.base_output_directory, (dir_.path() / "study" / "2").string() + "/");
  EXPECT_EQ(jobs[1].display_name, "study-trial-2");
}

TEST_F(TuningServiceTest, BestMeasurementSelection) {
  jobspec::HyperparameterTuningJob job = Study(1, 1);
  job.study_spec.measurement_selection_type = jobspec::MeasurementSelection::kBest;
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(job, [](const jobspec::CustomJob&, int) {
        return TrialScript{.values = {0.3, 0.9, 0.6}};
      });
  ASSERT_THAT(done, IsOk());
  ASSERT_TRUE(done->trials[0].final_measurement.has_value());
  EXPECT_EQ(done->trials[0].final_measurement->step_count, 2);
  EXPECT_EQ(jobspec::MetricValue(*done->trials[0].final_measurement, "accuracy"), 0.9);
}

TEST_F(TuningServiceTest, FailsTheStudyAtMaxFailedTrialCount) {
  jobspec::HyperparameterTuningJob job = Study(6, 1);
  job.max_failed_trial_count = 2;
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(job, [](const jobspec::CustomJob&, int n) {
        return TrialScript{.values = {0.5}, .fail = n != 2};  // trial 2 succeeds
      });
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message, HasSubstr("2 trials failed"));
  EXPECT_THAT(done->error->message, HasSubstr("maxFailedTrialCount 2"));
  EXPECT_THAT(done->error->message, HasSubstr("trial 3: The replica workerpool0-0 exited"));
  ASSERT_EQ(done->trials.size(), 3u);
  EXPECT_EQ(done->trials[0].state, jobspec::TrialState::kInfeasible);
  EXPECT_EQ(done->trials[1].state, jobspec::TrialState::kSucceeded);
  EXPECT_EQ(done->trials[2].state, jobspec::TrialState::kInfeasible);
  EXPECT_THAT(done->trials[2].infeasible_reason, HasSubstr("non-zero status"));
}

TEST_F(TuningServiceTest, FailuresBelowTheLimitLeaveTheStudySucceeded) {
  jobspec::HyperparameterTuningJob job = Study(4, 2);
  job.max_failed_trial_count = 3;
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(job, [](const jobspec::CustomJob&, int n) {
        return TrialScript{.values = {0.5}, .fail = n % 2 == 0};
      });
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_EQ(done->trials.size(), 4u);
}

TEST_F(TuningServiceTest, NoMetricMakesTheTrialInfeasible) {
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(Study(1, 1), [](const jobspec::CustomJob&, int) { return TrialScript{}; });
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->trials[0].state, jobspec::TrialState::kInfeasible);
  EXPECT_THAT(done->trials[0].infeasible_reason, HasSubstr("no value of metric \"accuracy\""));
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  EXPECT_THAT(done->error->message, HasSubstr("No trial succeeded"));
}

TEST_F(TuningServiceTest, MedianStoppingCancelsABadTrial) {
  jobspec::HyperparameterTuningJob job = Study(4, 1);
  job.study_spec.median_automated_stopping_spec = jobspec::MedianAutomatedStoppingSpec{};
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(job, [](const jobspec::CustomJob&, int n) {
        if (n == 4) return TrialScript{.values = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1}};
        return TrialScript{.values = {0.8, 0.85, 0.9, 0.9, 0.9, 0.9}};
      });
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  ASSERT_EQ(done->trials.size(), 4u);
  const jobspec::Trial& bad = done->trials[3];
  EXPECT_EQ(bad.state, jobspec::TrialState::kSucceeded);  // early-stopped trials end SUCCEEDED
  EXPECT_LT(bad.measurements.size(), 6u);
  EXPECT_EQ(runner_->cancelled(), 1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(done->trials[i].measurements.size(), 6u);
}

TEST_F(TuningServiceTest, CancelStopsRunningTrials) {
  absl::StatusOr<jobspec::HyperparameterTuningJob> done = RunStudy(
      Study(4, 2),
      [](const jobspec::CustomJob&, int) {
        return TrialScript{.values = {0.1, 0.2, 0.3, 0.4}};
      },
      [this](TuningServiceOptions& options) {
        options.cancel_requested = [this] { return updates_ > 3; };
      });
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_EQ(done->error->code, 1);
  EXPECT_EQ(runner_->cancelled(), 2);
  for (const jobspec::Trial& trial : done->trials) {
    EXPECT_EQ(trial.state, jobspec::TrialState::kInfeasible);
    EXPECT_THAT(trial.infeasible_reason, HasSubstr("cancelled"));
  }
}

TEST_F(TuningServiceTest, RejectsAnInvalidJob) {
  jobspec::HyperparameterTuningJob job = Study(2, 3);  // parallel > max
  absl::StatusOr<jobspec::HyperparameterTuningJob> done =
      RunStudy(job, [](const jobspec::CustomJob&, int) { return TrialScript{}; });
  EXPECT_EQ(done.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(done.status().message(), HasSubstr("parallelTrialCount"));
}

}  // namespace
}  // namespace trainpkg::sdk::hptune
