// What the dashboard's data calls read from the stores: jobs of every
// backend filtered and paged, a job's scalars from its TensorBoard event
// files and hypertune metric file, and tuning jobs with their results.
#include "sdk/serve/dashboard_data.h"

#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "sdk/hptune/results_table.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/job_store.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/train/event_file_writer.h"
#include "trainer_runtime/train/hypertune_reporter.h"

namespace trainpkg::sdk::serve {
namespace {

using ::testing::ElementsAre;
using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::TempDir;

absl::Time At(int seconds) { return absl::FromUnixSeconds(1'700'000'000 + seconds); }

class DashboardDataTest : public ::testing::Test {
 protected:
  // Records a job `id` created at At(created) in `state`.
  jobspec::CustomJob Record(const std::string& id, int created, jobspec::JobState state,
                            const std::string& display_name = "job") {
    jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}});
    job.name = "projects/p/locations/l/customJobs/" + id;
    job.display_name = display_name;
    job.state = state;
    job.create_time = At(created);
    EXPECT_THAT(store_.CreateJobDir(id), IsOk());
    EXPECT_THAT(store_.WriteJob(id, job), IsOk());
    return job;
  }

  TempDir dir_;
  JobStore store_{dir_.path() / "home"};
  JobClient client_{store_};
};

TEST_F(DashboardDataTest, JobsAreFilteredAndPagedNewestFirst) {
  Record("a", 1, jobspec::JobState::kSucceeded, "digits");
  Record("b", 2, jobspec::JobState::kFailed, "digits");
  Record("c", 3, jobspec::JobState::kSucceeded, "other");
  RestReply all = DashboardJobs(client_, "", "2", "");
  ASSERT_EQ(all.status, 200) << all.body.dump();
  EXPECT_EQ(all.body["total"], 3);
  ASSERT_EQ(all.body["jobs"].size(), 2u);
  EXPECT_EQ(all.body["jobs"][0]["id"], "c");
  EXPECT_EQ(all.body["jobs"][1]["id"], "b");
  EXPECT_EQ(all.body["jobs"][1]["state"], "JOB_STATE_FAILED");
  EXPECT_EQ(all.body["jobs"][1]["backend"], "local");
  RestReply second = DashboardJobs(client_, "", "2", "1");
  ASSERT_EQ(second.body["jobs"].size(), 1u);
  EXPECT_EQ(second.body["jobs"][0]["id"], "a");
  RestReply filtered = DashboardJobs(client_, "state=SUCCEEDED AND display_name:dig*", "", "");
  ASSERT_EQ(filtered.body["jobs"].size(), 1u) << filtered.body.dump();
  EXPECT_EQ(filtered.body["jobs"][0]["id"], "a");
  EXPECT_EQ(DashboardJobs(client_, "stat=1", "", "").status, 400);
  EXPECT_EQ(DashboardJobs(client_, "", "0", "").status, 400);
  EXPECT_EQ(DashboardJobs(client_, "", "", "-1").status, 400);
  EXPECT_EQ(DashboardJob(client_, "nosuchjob").status, 404);
}

TEST_F(DashboardDataTest, ScalarsComeFromEventFilesAndTheHypertuneFile) {
  jobspec::CustomJob job = Record("t", 1, jobspec::JobState::kRunning);
  const std::filesystem::path out = dir_.path() / "out";
  job.job_spec.base_output_directory = "file://" + out.string() + "/";
  const std::filesystem::path metric_file = out / "hypertune" / "output.metrics";
  job.job_spec.worker_pool_specs[0].container_spec->env = {
      {.name = "CLOUD_ML_HP_METRIC_FILE", .value = metric_file.string()},
      {.name = "CLOUD_ML_HP_METRIC_TAG", .value = "accuracy"}};
  ASSERT_THAT(store_.WriteJob("t", job), IsOk());
  const std::string logs = jobspec::OutputDirsFor(out.string(), "").tensorboard_log_dir;
  // Two event files (a restarted trainer): steps are merged in order.
  auto first = train::EventFileWriter::Create(logs, "a", At(0));
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT((*first)->WriteScalars(1, At(2), {{"loss", 1.5f}}), IsOk());
  auto second = train::EventFileWriter::Create(logs, "b", At(5));
  ASSERT_THAT(second, IsOk());
  ASSERT_THAT((*second)->WriteScalars(0, At(1), {{"loss", 2.5f}}), IsOk());
  ::trainpkg::testing::FakeClock clock(At(3));
  train::HypertuneReporter reporter(metric_file, "1", clock);
  ASSERT_THAT(reporter.Report("accuracy", 0.5, 1), IsOk());
  ASSERT_THAT(reporter.Report("accuracy", 0.75, 2), IsOk());

  RestReply reply = DashboardScalars(client_, "t");
  ASSERT_EQ(reply.status, 200) << reply.body.dump();
  const nlohmann::json& scalars = reply.body["scalars"];
  ASSERT_EQ(scalars["loss"].size(), 2u) << reply.body.dump();
  EXPECT_EQ(scalars["loss"][0][0], 0);
  EXPECT_EQ(scalars["loss"][0][1], 2.5);
  EXPECT_EQ(scalars["loss"][1][0], 1);
  EXPECT_EQ(scalars["loss"][1][1], 1.5);
  ASSERT_EQ(scalars["hypertune/accuracy"].size(), 2u) << reply.body.dump();
  EXPECT_EQ(scalars["hypertune/accuracy"][1][0], 2);
  EXPECT_EQ(scalars["hypertune/accuracy"][1][1], 0.75);
  EXPECT_EQ(reply.body["sources"].size(), 3u);
  EXPECT_TRUE(reply.body["errors"].empty());

  // A cloud output directory is not read here: no scalars, no error.
  job.job_spec.base_output_directory = "gs://bucket/out/";
  job.job_spec.worker_pool_specs[0].container_spec->env.clear();
  ASSERT_THAT(store_.WriteJob("t", job), IsOk());
  RestReply cloud = DashboardScalars(client_, "t");
  EXPECT_TRUE(cloud.body["scalars"].empty());
  EXPECT_TRUE(cloud.body["errors"].empty());
}

TEST_F(DashboardDataTest, TuningJobsCarryTheirResults) {
  hptune::TuningJobStore tuning(dir_.path() / "home");
  jobspec::HyperparameterTuningJob job;
  job.name = "projects/p/locations/l/hyperparameterTuningJobs/s1";
  job.display_name = "study";
  job.state = jobspec::JobState::kSucceeded;
  job.create_time = At(0);
  job.study_spec.metrics = {{.metric_id = "accuracy", .goal = jobspec::GoalType::kMaximize}};
  jobspec::ParameterSpec lr;
  lr.parameter_id = "lr";
  lr.value_spec = jobspec::DoubleValueSpec{.min_value = 0, .max_value = 1, .default_value = {}};
  job.study_spec.parameters.push_back(lr);
  for (auto [id, value] : {std::pair{"1", 0.5}, std::pair{"2", 0.9}, std::pair{"3", 0.7}}) {
    jobspec::Trial trial;
    trial.id = id;
    trial.state = jobspec::TrialState::kSucceeded;
    trial.parameters = {{.parameter_id = "lr", .value = value / 10}};
    trial.final_measurement.emplace().metrics = {{"accuracy", value}};
    trial.custom_job = std::string("projects/p/locations/l/customJobs/job") + id;
    job.trials.push_back(trial);
  }
  ASSERT_THAT(tuning.CreateJobDir("s1"), IsOk());
  ASSERT_THAT(tuning.WriteJob("s1", job), IsOk());

  RestReply one = DashboardTuningJob(dir_.path() / "home", "s1");
  ASSERT_EQ(one.status, 200) << one.body.dump();
  EXPECT_EQ(one.body["results"], hptune::ResultsJson(job));
  EXPECT_EQ(one.body["results"]["bestTrialId"], "2");
  EXPECT_EQ(one.body["trialJobs"]["2"], "job2");
  RestReply list = DashboardTuningJobs(dir_.path() / "home");
  ASSERT_EQ(list.body["tuningJobs"].size(), 1u);
  EXPECT_EQ(list.body["tuningJobs"][0]["bestTrialId"], "2");
  EXPECT_EQ(list.body["tuningJobs"][0]["trials"], 3);
  EXPECT_EQ(DashboardTuningJob(dir_.path() / "home", "nosuch").status, 404);
}

}  // namespace
}  // namespace trainpkg::sdk::serve
