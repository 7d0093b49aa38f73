// `trainpkg run` in container mode, cancelled with `trainpkg jobs cancel`
// from another process: while the run supervises the job, and after the
// run was killed (SIGKILL) so that nobody supervises it. Either way no runc
// container, container process or bundle is left. And SIGKILL of `trainpkg
// run` or of `trainpkg build` during a RUN: the watchdog removes the
// containers, mounts and network namespaces within seconds, and when the
// watchdog was killed too, the next trainpkg command of any kind does. Needs root and
// runc.
#include <signal.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "packager/run/host_resource_ledger.h"
#include "sdk/job_store.h"
#include "tests/sdk/container_test_util.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

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
    ASSERT_THAT(local, IsOk());
    for (const ReplicaDetails& replica : local->replicas) {
      EXPECT_TRUE(testing::ProcessGone(replica.pid)) << replica.name << " " << replica.pid;
    }
    ExpectNothingLeft();
  }

  // SIGKILLs the watchdog of `trainpkg run` process `run`, then the run:
  // nobody is left to clean up after its job.
  static void KillRunAndItsWatchdog(int run) {
    const int watchdog = WatchdogOf(run);
    ASSERT_GT(watchdog, 0);
    ::kill(watchdog, SIGKILL);
    EXPECT_TRUE(testing::WaitFor([&] { return testing::ProcessGone(watchdog); }, absl::Seconds(5)));
    ::kill(run, SIGKILL);
    EXPECT_EQ(testing::WaitExitCode(run), 128 + SIGKILL);
  }

  // The watchdog of process `pid` (packager/run/host_resource_ledger.h).
  static int WatchdogOf(int pid) {
    std::error_code ec;
    for (const fs::directory_entry& entry :
         fs::directory_iterator(packager::run::kHostResourceLedgerDir, ec)) {
      if (entry.path().filename().string().rfind(std::to_string(pid) + "-", 0) == 0) {
        return std::stoi(testing::Slurp(entry.path() / "watchdog"));
      }
    }
    return 0;
  }

  // Mount points under `dir` in this (the host's) mount namespace.
  static std::vector<std::string> MountsUnder(const fs::path& dir) {
    std::vector<std::string> mounts;
    std::istringstream lines(testing::Slurp("/proc/self/mountinfo"));
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string id, parent, device, root, mount_point;
      fields >> id >> parent >> device >> root >> mount_point;
      if (mount_point.rfind(dir.string(), 0) == 0) mounts.push_back(mount_point);
    }
    return mounts;
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
  ASSERT_NO_FATAL_FAILURE(KillRunAndItsWatchdog(run));
  // runc died with its supervisor; the containers' processes, in sessions
  // of their own, did not.
  EXPECT_EQ(RuncContainers("trainpkg-cancel_orphan-").size(), 3u);
  EXPECT_EQ(CancelFromAnotherProcess("cancel_orphan"), 0) << testing::Slurp(CancelOut());
  EXPECT_THAT(testing::Slurp(CancelOut()), HasSubstr("JOB_STATE_CANCELLED"));
  packager::run::SweepOrphanedHostResources();  // the job's network namespace
  ExpectNoContainerOrProcess(pids);
}

TEST_F(ContainerCancelTest, KilledTrainpkgRunLeavesNoContainerOrNamespaceWithin10Seconds) {
  std::vector<int> pids;
  int run = StartSleepingJob("killed_run", pids);
  ASSERT_GT(run, 0);
  EXPECT_EQ(NetworkNamespaces("trainpkg-killed_run-").size(), 1u);
  EXPECT_EQ(JobEtcFiles("trainpkg-killed_run-").size(), 2u);  // hosts, resolv.conf
  ::kill(run, SIGKILL);
  EXPECT_EQ(testing::WaitExitCode(run), 128 + SIGKILL);
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return RuncContainers("trainpkg-killed_run-").empty() &&
               NetworkNamespaces("trainpkg-killed_run-").empty() &&
               MountsUnder("/run/netns/trainpkg-killed_run-").empty() &&
               JobEtcFiles("trainpkg-killed_run-").empty();
      },
      absl::Seconds(10)));
  for (int pid : pids) {
    EXPECT_TRUE(testing::WaitFor([pid] { return testing::ProcessGone(pid); }, absl::Seconds(5)));
  }
}

TEST_F(ContainerCancelTest, NextTrainpkgCommandOfAnyKindRemovesWhatAKilledRunAndItsWatchdogLeft) {
  std::vector<int> pids;
  int run = StartSleepingJob("killed_twice", pids);
  ASSERT_GT(run, 0);
  ASSERT_NO_FATAL_FAILURE(KillRunAndItsWatchdog(run));
  EXPECT_EQ(RuncContainers("trainpkg-killed_twice-").size(), 3u);
  EXPECT_EQ(NetworkNamespaces("trainpkg-killed_twice-").size(), 1u);
  EXPECT_EQ(JobEtcFiles("trainpkg-killed_twice-").size(), 2u);

  // Any command will do; `images` neither runs nor reads jobs.
  int next = testing::SpawnWithOutput({TRAINPKG_PATH, "images"}, dir_.path() / "next.out",
                                      {{"TRAINPKG_HOME", home().string()}});
  EXPECT_EQ(testing::WaitExitCode(next), 0) << testing::Slurp(dir_.path() / "next.out");
  EXPECT_THAT(RuncContainers("trainpkg-killed_twice-"), IsEmpty());
  EXPECT_THAT(NetworkNamespaces("trainpkg-killed_twice-"), IsEmpty());
  EXPECT_THAT(JobEtcFiles("trainpkg-killed_twice-"), IsEmpty());
  for (int pid : pids) {
    EXPECT_TRUE(testing::WaitFor([pid] { return testing::ProcessGone(pid); }, absl::Seconds(5)));
  }
}

TEST_F(ContainerCancelTest, KilledTrainpkgBuildLeavesNoContainerMountOrNamespaceWithin10Seconds) {
  testing::WriteContextFile(context() / "Dockerfile",
                            "FROM scratch\n"
                            "COPY bin/busybox /bin/busybox\n"
                            "RUN [\"/bin/busybox\", \"sleep\", \"600\"]\n");
  int build =
      testing::SpawnWithOutput({TRAINPKG_PATH, "build", "-t", "sleepy:1", context().string()},
                               dir_.path() / "build.out", {{"TRAINPKG_HOME", home().string()}});
  ASSERT_GT(build, 0);
  const std::string prefix = "trainpkg-build-" + std::to_string(build) + "-";
  EXPECT_TRUE(
      testing::WaitFor([&] { return RuncContainers(prefix).size() == 1; }, absl::Seconds(60)))
      << testing::Slurp(dir_.path() / "build.out");
  EXPECT_THAT(MountsUnder(home()), Not(IsEmpty()));  // the RUN's overlay
  EXPECT_EQ(NetworkNamespaces(prefix).size(), 1u);
  ::kill(build, SIGKILL);
  EXPECT_EQ(testing::WaitExitCode(build), 128 + SIGKILL);
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        return RuncContainers(prefix).empty() && NetworkNamespaces(prefix).empty() &&
               MountsUnder(home()).empty() && MountsUnder("/run/netns/" + prefix).empty();
      },
      absl::Seconds(10)))
      << "containers: " << RuncContainers(prefix).size()
      << ", mounts under the home: " << MountsUnder(home()).size()
      << ", namespaces: " << NetworkNamespaces(prefix).size();
}

}  // namespace
}  // namespace trainpkg::sdk
