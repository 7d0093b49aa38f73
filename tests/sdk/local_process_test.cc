// The local backend with real processes (replica_probe as the trainer).
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>

#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "tests/sdk/job_outcome.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using testing::CreateAndRun;
using testing::ExpectJobFailed;
using ::testing::HasSubstr;
using testing::MakeJob;
using testing::PidsInDir;
using testing::ProcessGone;
using testing::ReplicaProbePath;
using ::testing::StartsWith;
using testing::TempDir;
using testing::WaitFor;

class LocalProcessTest : public ::testing::Test {
 protected:
  CustomJobOptions Options() {
    CustomJobOptions options;
    options.home = home_.path() / "home";
    options.log_stream = &log_;
    options.cancel_grace_period = absl::Seconds(5);
    return options;
  }
  std::string Dir(const std::string& name) {
    std::filesystem::path dir = home_.path() / name;
    std::filesystem::create_directories(dir);
    return dir.string();
  }
  // Every replica pid recorded for the job plus the grandchildren in `pid_dir`.
  std::vector<int> AllPids(const CustomJob& job, const std::string& pid_dir) {
    std::vector<int> pids = PidsInDir(pid_dir, "grandchild-");
    absl::StatusOr<LocalJobDetails> local =
        JobStore(home_.path() / "home").ReadLocalDetails(job.job_id());
    EXPECT_THAT(local, IsOk());
    for (const ReplicaDetails& replica : local->replicas) pids.push_back(replica.pid);
    return pids;
  }
  void ExpectAllGone(const std::vector<int>& pids) {
    for (int pid : pids) {
      EXPECT_TRUE(WaitFor([pid] { return ProcessGone(pid); }, absl::Seconds(5))) << "pid " << pid;
    }
  }

  TempDir home_;
  std::ostringstream log_;
};

TEST_F(LocalProcessTest, ChiefAndTwoWorkersSucceedWithTheirClusterEnvironment) {
  std::string dump = Dir("env");
  std::vector<std::string> args = {"--dump-env=" + dump, "--print=hello from a replica"};
  CustomJobOptions options = Options();
  std::map<std::string, std::string> env = base::SnapshotProcessEnvironment();
  env["PROBE_INHERITED"] = "inherited";
  options.environment = env;
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(MakeJob(ReplicaProbePath(), {{1, args}, {2, args}}), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();

  std::set<std::string> tasks;
  std::set<std::string> addresses;
  std::set<std::string> master_ports;
  for (const auto& entry : std::filesystem::directory_iterator(dump)) {
    nlohmann::json vars = nlohmann::json::parse(*base::ReadFile(entry.path()));
    EXPECT_EQ(vars["PROBE_INHERITED"], "inherited");
    EXPECT_EQ(vars["CLOUD_ML_JOB_ID"], job->job_id());
    absl::StatusOr<jobspec::ClusterSpecEnv> cluster =
        jobspec::ParseClusterSpec(vars["CLUSTER_SPEC"].get<std::string>());
    ASSERT_THAT(cluster, IsOk());
    ASSERT_EQ(cluster->cluster.at("workerpool0").size(), 1u);
    ASSERT_EQ(cluster->cluster.at("workerpool1").size(), 2u);
    for (const auto& [pool, list] : cluster->cluster) {
      for (const std::string& address : list) {
        EXPECT_THAT(address, StartsWith("127.0.0.1:"));
        addresses.insert(address);
      }
    }
    tasks.insert(cluster->task_type + "-" + std::to_string(cluster->task_index));
    // PyTorch's env:// variables: the chief is rank 0, workerpool1-i rank i + 1.
    EXPECT_EQ(vars["MASTER_ADDR"], "127.0.0.1");
    EXPECT_EQ(vars["WORLD_SIZE"], "3");
    EXPECT_EQ(vars["RANK"], std::to_string(cluster->task_type == "workerpool0"
                                               ? 0
                                               : cluster->task_index + 1));
    master_ports.insert(vars["MASTER_PORT"].get<std::string>());
    absl::StatusOr<jobspec::TfConfig> tf =
        jobspec::ParseTfConfig(vars["TF_CONFIG"].get<std::string>());
    ASSERT_THAT(tf, IsOk());
    EXPECT_EQ(tf->task_type, cluster->task_type == "workerpool0" ? "chief" : "worker");
    EXPECT_EQ(tf->cluster.at("worker").size(), 2u);
  }
  EXPECT_EQ(tasks, (std::set<std::string>{"workerpool0-0", "workerpool1-0", "workerpool1-1"}));
  EXPECT_EQ(addresses.size(), 3u);
  ASSERT_EQ(master_ports.size(), 1u) << "every replica names the same MASTER_PORT";
  EXPECT_FALSE(addresses.contains("127.0.0.1:" + *master_ports.begin()))
      << "MASTER_PORT is a port of its own, not a replica's cluster port";

  EXPECT_THAT(log_.str(), HasSubstr("[workerpool1-1] hello from a replica\n"));
  EXPECT_EQ(*base::ReadFile(job->job_dir() / "logs" / "workerpool0-0.log"),
            "hello from a replica\n");
  absl::StatusOr<JobInfo> info = JobClient(JobStore(home_.path() / "home")).GetJob(job->job_id());
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->job.state, jobspec::JobState::kSucceeded);
  ASSERT_EQ(info->local.replicas.size(), 3u);
  for (const ReplicaDetails& replica : info->local.replicas) {
    EXPECT_EQ(replica.exit_status, ExitStatus{});
    EXPECT_TRUE(ProcessGone(replica.pid));
  }
  std::vector<HistoryEntry> history = *JobStore(home_.path() / "home").ReadHistory(job->job_id());
  std::vector<jobspec::JobState> states;
  for (const HistoryEntry& entry : history) states.push_back(entry.state);
  EXPECT_EQ(states, (std::vector<jobspec::JobState>{
                        jobspec::JobState::kQueued, jobspec::JobState::kPending,
                        jobspec::JobState::kRunning, jobspec::JobState::kSucceeded}));
}

TEST_F(LocalProcessTest, ReplicaExitingNonZeroFailsTheJobAndStopsTheOthers) {
  std::string pids = Dir("pids");
  absl::StatusOr<CustomJob> job = CustomJob::Create(
      MakeJob(ReplicaProbePath(), {{1, {"--pid-dir=" + pids, "--sleep=60"}},
                                   {1, {"--print=failing", "--sleep=0.2", "--exit=3"}}}),
      Options());
  ASSERT_THAT(job, IsOk());
  ASSERT_NO_FATAL_FAILURE(ExpectJobFailed(
      job->Run(), 3,
      "The replica workerpool1-0 exited with a non-zero status of 3. To find out more about "
      "why your job exited please check the logs: " +
          (job->job_dir() / "logs" / "workerpool1-0.log").string()));
  ExpectAllGone(AllPids(*job, pids));
}

TEST_F(LocalProcessTest, CancelLeavesNoProcessBehind) {
  std::string pids = Dir("pids");
  std::vector<std::string> args = {"--pid-dir=" + pids, "--grandchild-sleep=60", "--sleep=60"};
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(MakeJob(ReplicaProbePath(), {{1, args}, {2, args}}), Options());
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(
      WaitFor([&] { return PidsInDir(pids, "grandchild-").size() == 3; }, absl::Seconds(10)));
  EXPECT_EQ(job->job().state, jobspec::JobState::kRunning);
  std::vector<int> all = AllPids(*job, pids);
  ASSERT_EQ(all.size(), 6u);
  job->Cancel();
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  EXPECT_EQ(done->error, (jobspec::RpcStatus{.code = 1, .message = "CANCELLED"}));
  ExpectAllGone(all);
}

TEST_F(LocalProcessTest, ReplicaIgnoringSigtermIsKilledAfterTheGracePeriod) {
  std::string pids = Dir("pids");
  CustomJobOptions options = Options();
  options.cancel_grace_period = absl::Milliseconds(500);
  absl::StatusOr<CustomJob> job = CustomJob::Create(
      MakeJob(
          ReplicaProbePath(),
          {{1, {"--ignore-sigterm", "--pid-dir=" + pids, "--grandchild-sleep=60", "--sleep=60"}}}),
      options);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(
      WaitFor([&] { return PidsInDir(pids, "grandchild-").size() == 1; }, absl::Seconds(10)));
  absl::Time cancelled = absl::Now();
  job->Cancel();
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  absl::Duration took = absl::Now() - cancelled;
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  EXPECT_GE(took, absl::Milliseconds(450));
  EXPECT_LT(took, absl::Seconds(4));
  absl::StatusOr<LocalJobDetails> local =
      JobStore(home_.path() / "home").ReadLocalDetails(job->job_id());
  ASSERT_THAT(local, IsOk());
  EXPECT_EQ(local->replicas[0].exit_status, (ExitStatus{.signal = SIGKILL}));
  ExpectAllGone(AllPids(*job, pids));
}

TEST_F(LocalProcessTest, TimeoutFailsTheJob) {
  jobspec::CustomJob spec = MakeJob(ReplicaProbePath(), {{1, {"--sleep=60"}}});
  spec.job_spec.scheduling.emplace().timeout = absl::Seconds(1);
  ExpectJobFailed(CreateAndRun(spec, Options()), 4, HasSubstr("exceeded its timeout of 1s"));
}

TEST_F(LocalProcessTest, ExecutableThatCannotBeExecutedFailsTheJobNamingTheReplica) {
  std::filesystem::path bogus = home_.path() / "not_a_program";
  ASSERT_TRUE(base::WriteFileAtomic(bogus,
                                    "\x7f"
                                    "ELF garbage")
                  .ok());
  ::chmod(bogus.c_str(), 0755);
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob(bogus.string(), {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  EXPECT_THAT(done->error->message, HasSubstr("The replica workerpool0-0 could not be started"));
}

TEST_F(LocalProcessTest, MissingExecutableIsAnError) {
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(MakeJob((home_.path() / "missing").string(), {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->Run().status().code(), absl::StatusCode::kNotFound);
}

TEST_F(LocalProcessTest, JobClientCancelsAJobSupervisedElsewhere) {
  std::string pids = Dir("pids");
  absl::StatusOr<CustomJob> job = CustomJob::Create(
      MakeJob(ReplicaProbePath(),
              {{1, {"--pid-dir=" + pids, "--grandchild-sleep=60", "--sleep=60"}}}),
      Options());
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(
      WaitFor([&] { return PidsInDir(pids, "grandchild-").size() == 1; }, absl::Seconds(10)));
  std::vector<int> all = AllPids(*job, pids);
  absl::StatusOr<jobspec::CustomJob> cancelled =
      JobClient(JobStore(home_.path() / "home")).CancelJob(job->job_id(), absl::Seconds(10));
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_EQ(cancelled->state, jobspec::JobState::kCancelled);
  EXPECT_EQ(job->Wait()->state, jobspec::JobState::kCancelled);
  ExpectAllGone(all);
}

}  // namespace
}  // namespace trainpkg::sdk
