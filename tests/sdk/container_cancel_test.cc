// `trainpkg run` in container mode, cancelled with `trainpkg jobs cancel`
// from another process: while the run supervises the job, and after the
// run was killed (SIGKILL) so that nobody supervises it. Either way no runc
// container, container process or bundle is left. Needs root and runc.
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "sdk/job_store.h"
#include "tests/sdk/container_test_util.h"
#include "tests/sdk/sdk_test_util.h"

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class ContainerCancelTest : public testing::ContainerTestBase {
 protected:
  // Starts `trainpkg run` of 1 chief + 2 workers that sleep (ignoring
  // SIGTERM, as PID 1 of their containers) as job `id`, and waits until the
  // three containers run; returns the run's pid and their init pids.
  int StartSleepingJob(const std::string& id, std::vector<int>& container_pids) {
    const std::string image = BuildImage("sleep:1",
                                         "FROM scratch\n"
                                         "COPY bin/busybox /bin/busybox\n"
                                         "ENTRYPOINT [\"/bin/busybox\", \"sleep\", \"600\"]\n");
    const fs::path job_file = dir_.path() / "job.json";
    testing::WriteContextFile(job_file,
                              jobspec::FormatCustomJobJson(MakeContainerJob(image, {1, 2}, {})));
    job_id_ = id;
    job_dir_ = JobStore(home()).JobDir(id);
    int run = testing::SpawnWithOutput(
        {TRAINPKG_PATH, "run", "--config", job_file.string(), "--job-id", id}, RunOut(),
        {{"TRAINPKG_HOME", home().string()}});
    EXPECT_GT(run, 0);
    const std::string prefix = "trainpkg-" + id + "-";
    EXPECT_TRUE(
        testing::WaitFor([&] { return RuncContainers(prefix).size() == 3; }, absl::Seconds(30)))
        << testing::Slurp(RunOut());
    container_pids = ContainerPids(prefix);
    EXPECT_EQ(container_pids.size(), 3u);
    return run;
  }

  // `trainpkg jobs cancel id`: its exit code; its output goes to CancelOut().
  int CancelFromAnotherProcess(const std::string& id) {
    int cancel = testing::SpawnWithOutput({TRAINPKG_PATH, "jobs", "cancel", id}, CancelOut(),
                                          {{"TRAINPKG_HOME", home().string()}});
    return testing::WaitExitCode(cancel);
  }

  void ExpectNoContainerOrProcess(const std::vector<int>& container_pids) {
    EXPECT_THAT(RuncContainers("trainpkg-" + job_id_ + "-"), IsEmpty());
    for (int pid : container_pids) {
      EXPECT_TRUE(testing::WaitFor([pid] { return testing::ProcessGone(pid); }, absl::Seconds(5)))
          << pid;
    }
    absl::StatusOr<LocalJobDetails> local = JobStore(home()).ReadLocalDetails(job_id_);
    ASSERT_TRUE(local.ok()) << local.status();
    for (const ReplicaDetails& replica : local->replicas) {
      EXPECT_TRUE(testing::ProcessGone(replica.pid)) << replica.name << " " << replica.pid;
    }
    ExpectNothingLeft();
  }

  fs::path RunOut() const { return dir_.path() / "run.out"; }
  fs::path CancelOut() const { return dir_.path() / "cancel.out"; }
};

TEST_F(ContainerCancelTest, JobsCancelStopsTheContainersOfARunningTrainpkgRun) {
  std::vector<int> pids;
  int run = StartSleepingJob("cancel_running", pids);
  ASSERT_GT(run, 0);
  EXPECT_EQ(CancelFromAnotherProcess("cancel_running"), 0) << testing::Slurp(CancelOut());
  EXPECT_THAT(testing::Slurp(CancelOut()), HasSubstr("JOB_STATE_CANCELLED"));
  EXPECT_EQ(testing::WaitExitCode(run), 130) << testing::Slurp(RunOut());
  ExpectNoContainerOrProcess(pids);
}

TEST_F(ContainerCancelTest, JobsCancelDeletesTheContainersOfAKilledTrainpkgRun) {
  std::vector<int> pids;
  int run = StartSleepingJob("cancel_orphan", pids);
  ASSERT_GT(run, 0);
  ::kill(run, SIGKILL);
  EXPECT_EQ(testing::WaitExitCode(run), 128 + SIGKILL);
  // runc died with its supervisor; the containers' processes, in sessions
  // of their own, did not.
  EXPECT_EQ(RuncContainers("trainpkg-cancel_orphan-").size(), 3u);
  EXPECT_EQ(CancelFromAnotherProcess("cancel_orphan"), 0) << testing::Slurp(CancelOut());
  EXPECT_THAT(testing::Slurp(CancelOut()), HasSubstr("JOB_STATE_CANCELLED"));
  ExpectNoContainerOrProcess(pids);
}

}  // namespace
}  // namespace trainpkg::sdk
