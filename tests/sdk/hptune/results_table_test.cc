#include "sdk/hptune/results_table.h"

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/hptune/metric_plot.h"
#include "sdk/hptune/tuning_job_store.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::hptune {
namespace {

using ::testing::HasSubstr;

jobspec::Trial MakeTrial(std::string id, double lr, std::optional<double> accuracy,
                         jobspec::TrialState state) {
  jobspec::Trial trial;
  trial.id = std::move(id);
  trial.state = state;
  trial.parameters.push_back({"lr", lr});
  trial.start_time = absl::FromUnixSeconds(100);
  trial.end_time = absl::FromUnixSeconds(112);
  if (accuracy) {
    jobspec::Measurement m;
    m.step_count = 2;
    m.metrics.push_back({"accuracy", *accuracy});
    trial.measurements.push_back(m);
    trial.final_measurement = m;
  }
  return trial;
}

jobspec::HyperparameterTuningJob Job(jobspec::GoalType goal) {
  jobspec::HyperparameterTuningJob job;
  job.display_name = "study";
  job.study_spec.metrics.push_back({"accuracy", goal});
  job.study_spec.parameters.push_back(
      {"lr", jobspec::DoubleValueSpec{1e-3, 1.0, {}}, jobspec::ScaleType::kLog, {}});
  job.trials = {MakeTrial("1", 0.5, 0.7, jobspec::TrialState::kSucceeded),
                MakeTrial("2", 0.25, std::nullopt, jobspec::TrialState::kInfeasible),
                MakeTrial("3", 0.125, 0.9, jobspec::TrialState::kSucceeded)};
  return job;
}

TEST(ResultsTableTest, SortsByTheMetricAndNamesTheBestTrial) {
  const std::string table = FormatResultsTable(Job(jobspec::GoalType::kMaximize));
  EXPECT_EQ(table,
            "TRIAL  lr     accuracy  STATE       DURATION\n"
            "3      0.125  0.9       SUCCEEDED   12.0s\n"
            "1      0.5    0.7       SUCCEEDED   12.0s\n"
            "2      0.25   -         INFEASIBLE  12.0s\n"
            "Best trial: 3 (accuracy = 0.9): --lr=0.125\n");
  const std::string minimized = FormatResultsTable(Job(jobspec::GoalType::kMinimize));
  EXPECT_THAT(minimized, HasSubstr("Best trial: 1 (accuracy = 0.7)"));
}

TEST(ResultsTableTest, JsonAndSvgDescribeTheTrials) {
  const jobspec::HyperparameterTuningJob job = Job(jobspec::GoalType::kMaximize);
  const nlohmann::json json = ResultsJson(job);
  EXPECT_EQ(json["bestTrialId"], "3");
  ASSERT_EQ(json["trials"].size(), 3u);
  EXPECT_EQ(json["trials"][0]["objective"], 0.9);
  EXPECT_EQ(json["trials"][0]["parameters"]["lr"], 0.125);
  EXPECT_FALSE(json["trials"][2].contains("objective"));
  const std::string svg = MetricPlotSvg(job);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("<title>trial 3: 0.9</title>"));
  EXPECT_THAT(svg, HasSubstr("<title>trial 2: INFEASIBLE</title>"));
  EXPECT_THAT(svg, HasSubstr("#d62728"));  // the best trial's colour
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

TEST(ResultsTableTest, NoSucceededTrial) {
  jobspec::HyperparameterTuningJob job = Job(jobspec::GoalType::kMaximize);
  job.trials = {MakeTrial("1", 0.5, std::nullopt, jobspec::TrialState::kInfeasible)};
  EXPECT_EQ(BestTrial(job), nullptr);
  EXPECT_THAT(FormatResultsTable(job), HasSubstr("No trial succeeded."));
}

TEST(ResultsTableTest, WriteResultsWritesThreeFiles) {
  sdk::testing::TempDir dir;
  ASSERT_THAT(WriteResults(Job(jobspec::GoalType::kMaximize), dir.path() / "out"), IsOk());
  for (const char* name : {"results.json", "results.svg", "results.txt"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "out" / name)) << name;
  }
}

TEST(TuningJobStoreTest, RecordsReadsListsAndCancels) {
  sdk::testing::TempDir dir;
  TuningJobStore store(dir.path());
  jobspec::HyperparameterTuningJob job = Job(jobspec::GoalType::kMaximize);
  job.name = "projects/local/locations/local/hyperparameterTuningJobs/42";
  EXPECT_EQ(store.ReadJob("42").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.RequestCancel("42").code(), absl::StatusCode::kNotFound);
  ASSERT_THAT(store.CreateJobDir("42"), IsOk());
  EXPECT_EQ(store.CreateJobDir("42").code(), absl::StatusCode::kAlreadyExists);
  ASSERT_THAT(store.WriteJob("42", job), IsOk());
  absl::StatusOr<jobspec::HyperparameterTuningJob> read = store.ReadJob("42");
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->trials.size(), 3u);
  EXPECT_EQ(read->trials[2].final_measurement, job.trials[2].final_measurement);
  EXPECT_EQ(*store.ListJobIds(), std::vector<std::string>{"42"});
  EXPECT_FALSE(store.CancelRequested("42"));
  ASSERT_THAT(store.RequestCancel("42"), IsOk());
  EXPECT_TRUE(store.CancelRequested("42"));
}

}  // namespace
}  // namespace trainpkg::sdk::hptune
