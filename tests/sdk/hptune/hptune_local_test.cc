// The tuning service end to end on the local backend: trials are real
// processes (testdata/timeline_trainer.sh) run by sdk::HyperparameterTuningJob.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/hptune/hyperparameter_tuning_job.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/job_store.h"
#include "tests/sdk/hptune/timeline_study.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::SizeIs;

jobspec::HyperparameterTuningJob Study(int max_trials, int parallel, const std::string& sleep,
                                       const std::filesystem::path& timeline_dir) {
  return hptune::testing::TimelineStudy("timeline", max_trials, parallel, sleep, timeline_dir);
}

HyperparameterTuningJobOptions Options(const std::filesystem::path& home) {
  HyperparameterTuningJobOptions options;
  options.trial_options.home = home;
  options.trial_options.cancel_grace_period = absl::Seconds(2);
  options.base_output_dir = home / "study";
  options.poll_interval = absl::Milliseconds(50);
  options.seed = 3;
  return options;
}

struct Interval {
  int64_t start = 0;
  int64_t end = 0;
};

std::map<std::string, Interval> ReadTimeline(const std::filesystem::path& dir) {
  std::map<std::string, Interval> intervals;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("pid-", 0) == 0) continue;
    std::ifstream in(entry.path());
    std::string word;
    int64_t ns = 0;
    while (in >> word >> ns) (word == "start" ? intervals[name].start : intervals[name].end) = ns;
  }
  return intervals;
}

TEST(HptuneLocalTest, TrialsNeverExceedParallelTrialCountAndAreRecorded) {
  testing::TempDir dir;
  const std::filesystem::path timeline = dir.path() / "timeline";
  std::filesystem::create_directories(timeline);
  absl::StatusOr<HyperparameterTuningJob> job =
      HyperparameterTuningJob::Create(Study(5, 2, "0.4", timeline), Options(dir.path()));
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::HyperparameterTuningJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "");
  ASSERT_THAT(done->trials, SizeIs(5));

  const std::map<std::string, Interval> intervals = ReadTimeline(timeline);
  ASSERT_EQ(intervals.size(), 5u);
  int max_overlap = 0;
  for (const auto& [id, at] : intervals) {
    ASSERT_GT(at.end, at.start) << "trial " << id;
    int running = 0;  // trials running at the moment trial `id` started
    for (const auto& [other, span] : intervals) {
      if (span.start <= at.start && at.start < span.end) ++running;
    }
    max_overlap = std::max(max_overlap, running);
  }
  EXPECT_LE(max_overlap, 2);
  EXPECT_EQ(max_overlap, 2);  // the budget was used

  hptune::TuningJobStore tuning_store(dir.path());
  absl::StatusOr<jobspec::HyperparameterTuningJob> recorded = tuning_store.ReadJob(job->job_id());
  ASSERT_THAT(recorded, IsOk());
  EXPECT_EQ(recorded->state, jobspec::JobState::kSucceeded);
  ASSERT_THAT(recorded->trials, SizeIs(5));
  JobStore custom_jobs(dir.path());
  for (const jobspec::Trial& trial : recorded->trials) {
    EXPECT_EQ(trial.state, jobspec::TrialState::kSucceeded) << trial.infeasible_reason;
    ASSERT_TRUE(trial.final_measurement.has_value());
    const std::string id = trial.custom_job.substr(trial.custom_job.rfind('/') + 1);
    absl::StatusOr<jobspec::CustomJob> custom_job = custom_jobs.ReadJob(id);
    ASSERT_THAT(custom_job, IsOk());
    EXPECT_EQ(custom_job->display_name, "timeline-trial-" + trial.id);
    EXPECT_EQ(custom_job->state, jobspec::JobState::kSucceeded);
  }
  for (const char* name : {"results.json", "results.svg", "results.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "study" / name)) << name;
  }
}

TEST(HptuneLocalTest, CancelThroughTheStoreLeavesNoProcess) {
  testing::TempDir dir;
  const std::filesystem::path timeline = dir.path() / "timeline";
  std::filesystem::create_directories(timeline);
  absl::StatusOr<HyperparameterTuningJob> job =
      HyperparameterTuningJob::Create(Study(4, 2, "60", timeline), Options(dir.path()));
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(testing::WaitFor(
      [&] {
        return std::filesystem::exists(timeline / "pid-1") &&
               std::filesystem::exists(timeline / "pid-2");
      },
      absl::Seconds(20)));
  std::vector<int> pids;
  for (const char* name : {"pid-1", "pid-2"}) {
    std::ifstream in(timeline / name);
    int pid = 0;
    in >> pid;
    pids.push_back(pid);
  }
  // As `trainpkg jobs cancel <id>` does, from another process.
  ASSERT_THAT(hptune::TuningJobStore(dir.path()).RequestCancel(job->job_id()), IsOk());
  absl::StatusOr<jobspec::HyperparameterTuningJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  EXPECT_THAT(done->trials, SizeIs(2));
  for (int pid : pids) EXPECT_TRUE(testing::ProcessGone(pid)) << pid;
}

}  // namespace
}  // namespace trainpkg::sdk
