// JobClient repairing jobs whose supervisor died.
#include "sdk/job_client.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/internal/proc_stat.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

extern char** environ;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using testing::MakeJob;
using testing::ProcessGone;
using testing::ReplicaProbePath;
using testing::TempDir;
using testing::WaitFor;

// Starts replica_probe --sleep=60 as the leader of a new process group.
int SpawnSleeper() {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::string probe = ReplicaProbePath();
  std::string sleep = "--sleep=60";
  char* argv[] = {probe.data(), sleep.data(), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, probe.c_str(), nullptr, &attr, argv, environ), 0);
  posix_spawnattr_destroy(&attr);
  return pid;
}

class JobClientTest : public ::testing::Test {
 protected:
  // Records a RUNNING job whose supervisor is a process that already exited
  // and whose replica is `replica_pid`.
  void RecordOrphan(const std::string& id, int replica_pid, bool replica_exited) {
    pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    ASSERT_THAT(store_.CreateJobDir(id), IsOk());
    jobspec::CustomJob job = MakeJob("/bin/true", {{1, {}}});
    job.name = "projects/local/locations/local/customJobs/" + id;
    job.state = jobspec::JobState::kRunning;
    job.create_time = absl::Now();
    ASSERT_THAT(store_.WriteJob(id, job), IsOk());
    LocalJobDetails local;
    local.supervisor = {.pid = dead, .start_time = 1};
    ReplicaDetails replica;
    replica.name = "workerpool0-0";
    replica.pid = replica_pid;
    replica.pgid = replica_pid;
    replica.start_time = internal::ReadProcStat(replica_pid)->start_time;
    if (replica_exited) replica.exit_status = ExitStatus{};
    local.replicas.push_back(replica);
    ASSERT_THAT(store_.WriteLocalDetails(id, local), IsOk());
  }

  void Reap(int pid) {
    ASSERT_TRUE(WaitFor([pid] { return ProcessGone(pid); }, absl::Seconds(5)));
    ::waitpid(pid, nullptr, 0);
  }

  TempDir home_;
  JobStore store_{home_.path()};
  JobClient client_{store_};
};

TEST_F(JobClientTest, ReadingAnOrphanedJobFailsItAndKillsItsReplicas) {
  int replica = SpawnSleeper();
  RecordOrphan("orphan", replica, /*replica_exited=*/false);
  absl::StatusOr<JobInfo> info = client_.GetJob("orphan");
  ASSERT_THAT(info, IsOk());
  EXPECT_FALSE(info->supervisor_running);
  EXPECT_EQ(info->job.state, jobspec::JobState::kFailed);
  EXPECT_THAT(info->job.error->message, HasSubstr("supervisor"));
  EXPECT_EQ(store_.ReadJob("orphan")->state, jobspec::JobState::kFailed);
  Reap(replica);
}

TEST_F(JobClientTest, CancellingAnOrphanedJobCancelsIt) {
  int replica = SpawnSleeper();
  RecordOrphan("orphan", replica, /*replica_exited=*/false);
  absl::StatusOr<jobspec::CustomJob> job = client_.CancelJob("orphan", absl::Seconds(5));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state, jobspec::JobState::kCancelled);
  Reap(replica);
}

TEST_F(JobClientTest, CancellingAnOrphanWithNothingRunningFailsIt) {
  int replica = SpawnSleeper();
  RecordOrphan("orphan", replica, /*replica_exited=*/true);
  absl::StatusOr<jobspec::CustomJob> job = client_.CancelJob("orphan", absl::Seconds(5));
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state, jobspec::JobState::kFailed);
  Reap(replica);
}

TEST_F(JobClientTest, ListsNewestFirstAndUnknownJobIsNotFound) {
  for (const char* id : {"older", "newer"}) {
    ASSERT_THAT(store_.CreateJobDir(id), IsOk());
    jobspec::CustomJob job = MakeJob("/bin/true", {{1, {}}});
    job.state = jobspec::JobState::kSucceeded;
    job.create_time = absl::Now();
    ASSERT_THAT(store_.WriteJob(id, job), IsOk());
  }
  absl::StatusOr<std::vector<JobInfo>> jobs = client_.ListJobs();
  ASSERT_THAT(jobs, IsOk());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].id, "newer");
  EXPECT_EQ(client_.GetJob("nope").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::sdk
