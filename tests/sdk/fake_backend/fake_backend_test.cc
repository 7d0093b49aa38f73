// A backend added as one folder and one table row: CustomJob, JobClient and
// the driver lookups all reach the fake through the table, and nothing else.
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/job_state.h"
#include "sdk/backend_table.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "tests/sdk/fake_backend/fake_driver.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using testing::MakeJob;
using testing::TempDir;

class FakeBackendTest : public ::testing::Test {
 protected:
  CustomJobOptions Options() {
    CustomJobOptions options;
    options.backend = JobBackendKind::kSlurm;  // the row the fake sits in
    options.home = home_.path();
    options.log_stream = &log_;
    return options;
  }

  const fake::FakeDriver driver_{JobBackendKind::kSlurm};
  const ScopedBackendDriver row_{driver_};
  TempDir home_;
  std::ostringstream log_;
};

TEST_F(FakeBackendTest, CustomJobRunsOnTheDriverOfItsRow) {
  EXPECT_EQ(&BackendDriverFor(JobBackendKind::kSlurm), &driver_);
  EXPECT_EQ(*BackendDriverNamed("fake"), &driver_);

  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->job_id(), job->resource_name().substr(5));  // "fake/<id>"
  ASSERT_THAT(job->Submit(), IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_THAT(log_.str(), HasSubstr("Creating CustomJob\nFake job created: fake/"));
  EXPECT_EQ(job->job_dir(), home_.path() / "jobs" / job->job_id());
}

TEST_F(FakeBackendTest, TheDriversJobIdRuleIsTheSdks) {
  CustomJobOptions options = Options();
  options.job_id = "not-fake";
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("job_id: \"not-fake\" does not start with fake-"));
}

TEST_F(FakeBackendTest, JobClientFindsTheRecordThroughTheTable) {
  CustomJobOptions options = Options();
  options.job_id = "fake-recorded";
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), options);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());

  JobClient client{JobStore(home_.path())};
  absl::StatusOr<JobInfo> info = client.GetJob("fake-recorded");
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->backend, "fake");
  EXPECT_EQ(&JobDriver(*info), &driver_);
  EXPECT_EQ(info->job.state, jobspec::JobState::kRunning);
  // A remote backend's jobs are cancelled through its driver, not the store.
  EXPECT_EQ(client.CancelJob("fake-recorded", absl::Seconds(1)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  absl::StatusOr<jobspec::CustomJob> cancelled =
      JobDriver(*info).Cancel(client.store(), *info, RecordAccess{}, absl::Seconds(1));
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_EQ(client.GetJob("fake-recorded")->job.state, jobspec::JobState::kCancelled);
}

TEST(BackendTableTest, TheRowIsRestoredWhenTheScopeEnds) {
  const BackendDriver* slurm = &BackendDriverFor(JobBackendKind::kSlurm);
  {
    fake::FakeDriver fake(JobBackendKind::kSlurm);
    ScopedBackendDriver row(fake);
    EXPECT_EQ(&BackendDriverFor(JobBackendKind::kSlurm), &fake);
  }
  EXPECT_EQ(&BackendDriverFor(JobBackendKind::kSlurm), slurm);
  EXPECT_EQ(slurm->name(), "slurm");
  EXPECT_EQ(BackendDriverNamed("pbs").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(BackendDriverNamed("pbs").status().message(),
              ::testing::HasSubstr("is not one of vertex, k8s, slurm, ssh, local"));
}

}  // namespace
}  // namespace trainpkg::sdk
