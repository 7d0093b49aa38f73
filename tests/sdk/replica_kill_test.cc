// One replica's process killed with SIGKILL while the digits sample trains
// (1 chief + 2 workers), in container mode (the trainer is the container's
// init, found with `runc state`) and in process mode (its pid from the job
// store). With scheduling.restartJobOnWorkerRestart the job restarts every
// replica, they resume from the chief's checkpoint and the job SUCCEEDS;
// without it the job FAILS naming the killed replica. Needs root and runc.
#include <signal.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/local_job_details.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "tests/sdk/container_test_util.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kVictim[] = "workerpool1-0";
// Long enough that the kill lands well before the last epoch.
constexpr int kEpochs = 40;

class ReplicaKillTest : public testing::ContainerTestBase {
 protected:
  // Host pid of the trainer process of `replica` in the running job.
  using PidOf = std::function<int(const std::string& replica)>;

  PidOf ContainerPid() {
    return [this](const std::string& replica) {
      std::vector<int> pids = ContainerPids("trainpkg-" + job_id_ + "-" + replica);
      return pids.size() == 1 ? pids[0] : 0;
    };
  }

  PidOf ProcessPid() {
    return [this](const std::string& replica) {
      absl::StatusOr<JobInfo> info = JobClient(JobStore(home())).GetJob(job_id_);
      if (!info.ok()) return 0;
      for (const ReplicaDetails& details : info->local.replicas) {
        if (details.name == replica && !details.exit_status.has_value()) return details.pid;
      }
      return 0;
    };
  }

  // Runs `spec`, SIGKILLs kVictim's trainer once the chief has written its
  // first checkpoint, and returns the finished job. `freeze_others` first
  // stops (SIGSTOP) the other replicas, so that the victim is the first
  // replica to fail rather than a peer noticing its death.
  absl::StatusOr<jobspec::CustomJob> RunKillingVictim(const jobspec::CustomJob& spec,
                                                      const PidOf& pid_of, bool freeze_others) {
    log_.str("");
    absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
    if (!job.ok()) return job.status();
    job_dir_ = job->job_dir();
    job_id_ = job->job_id();
    if (absl::Status submitted = job->Submit(); !submitted.ok()) return submitted;
    const fs::path checkpoint = output_dir() / "checkpoints/chief/checkpoint.tpckpt";
    EXPECT_TRUE(testing::WaitFor([&] { return fs::exists(checkpoint); }, absl::Seconds(60)))
        << log_.str();
    int victim = 0;
    EXPECT_TRUE(testing::WaitFor([&] { return (victim = pid_of(kVictim)) > 0; },
                                 absl::Seconds(10)));
    if (freeze_others) {
      for (const char* other : {"workerpool0-0", "workerpool1-1"}) {
        int pid = pid_of(other);
        EXPECT_GT(pid, 0) << other;
        if (pid > 0) {
          ::kill(pid, SIGSTOP);
        }
      }
    }
    if (victim > 0) {
      EXPECT_EQ(::kill(victim, SIGKILL), 0) << victim;
    }
    absl::StatusOr<jobspec::CustomJob> done = job->Wait();
    if (victim > 0) {
      EXPECT_TRUE(testing::ProcessGone(victim)) << victim;
    }
    return done;
  }

  void ExpectRestartedAndSucceeded(const absl::StatusOr<jobspec::CustomJob>& done) {
    ASSERT_THAT(done, IsOk());
    EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
    EXPECT_THAT(log_.str(), HasSubstr("Restarting all replicas (restart 1 of at most 3)"));
    EXPECT_THAT(testing::Slurp(job_dir_ / "logs/workerpool0-0.log"),
                HasSubstr("checkpoint.tpckpt: resuming at epoch"));
    EXPECT_TRUE(fs::exists(output_dir() / "model/model.tpmodel")) << log_.str();
    // local.json says how often each replica was started again (the dashboard shows it).
    absl::StatusOr<LocalJobDetails> details =
        ParseLocalJobDetails(testing::Slurp(job_dir_ / "local.json"));
    ASSERT_THAT(details, IsOk());
    ASSERT_FALSE(details->replicas.empty());
    for (const ReplicaDetails& replica : details->replicas) {
      EXPECT_EQ(replica.restarts, 1) << replica.name;
    }
  }

  void ExpectFailedNamingVictim(const absl::StatusOr<jobspec::CustomJob>& done,
                                const std::string& how) {
    ASSERT_THAT(done, IsOk());
    EXPECT_EQ(done->state, jobspec::JobState::kFailed) << log_.str();
    ASSERT_TRUE(done->error.has_value());
    EXPECT_THAT(done->error->message, HasSubstr(std::string("The replica ") + kVictim + " " + how));
    EXPECT_THAT(log_.str(), ::testing::Not(HasSubstr("Restarting all replicas")));
  }
};

TEST_F(ReplicaKillTest, ContainerModeRestartsAndResumesOrFailsNamingTheReplica) {
  const std::string image = BundleImage("digits:kill", DIGITS_SAMPLE);
  jobspec::CustomJob spec = MakeDigitsJob(image, 2, kEpochs);
  spec.job_spec.scheduling.emplace().restart_job_on_worker_restart = true;
  ExpectRestartedAndSucceeded(RunKillingVictim(spec, ContainerPid(), /*freeze_others=*/false));
  ExpectNothingLeft();

  // `runc run` exits 128 + the signal of its container's init.
  fs::remove_all(output_dir());
  spec = MakeDigitsJob(image, 2, kEpochs);
  ExpectFailedNamingVictim(RunKillingVictim(spec, ContainerPid(), /*freeze_others=*/true),
                           "exited with a non-zero status of 137");
  ExpectNothingLeft();
}

TEST_F(ReplicaKillTest, ProcessModeRestartsAndResumesOrFailsNamingTheReplica) {
  jobspec::CustomJob spec = MakeDigitsJob(std::string("local:") + DIGITS_SAMPLE, 2, kEpochs);
  spec.job_spec.scheduling.emplace().restart_job_on_worker_restart = true;
  ExpectRestartedAndSucceeded(RunKillingVictim(spec, ProcessPid(), /*freeze_others=*/false));

  fs::remove_all(output_dir());
  spec = MakeDigitsJob(std::string("local:") + DIGITS_SAMPLE, 2, kEpochs);
  ExpectFailedNamingVictim(RunKillingVictim(spec, ProcessPid(), /*freeze_others=*/true),
                           "was terminated by signal 9");
}

}  // namespace
}  // namespace trainpkg::sdk
