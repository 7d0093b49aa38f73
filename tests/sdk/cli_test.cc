// The trainpkg binary end to end: flags, exit codes, jobs commands, --detach
// and Ctrl-C, with replica_probe as the trainer.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sdk/job_store.h"
#include "tests/sdk/sdk_test_util.h"

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using testing::PidsInDir;
using testing::ProcessGone;
using testing::ReplicaProbePath;
using testing::TempDir;
using testing::WaitFor;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  // Starts trainpkg with `args`, stdout and stderr going to files.
  pid_t Start(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {TRAINPKG_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv = testing::CStrings(argv);
    std::vector<std::string> env = testing::EnvironmentWith({{"TRAINPKG_HOME", home().string()}});
    std::vector<char*> cenv = testing::CStrings(env);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, OutFile().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, ErrFile().c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return pid;
  }

  // Optionally sends `signal` to trainpkg, then waits for it.
  CliResult Finish(pid_t pid, int signal = 0) {
    if (signal != 0) ::kill(pid, signal);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return CliResult{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                     .out = base::ReadFile(OutFile()).value_or(""),
                     .err = base::ReadFile(ErrFile()).value_or("")};
  }

  CliResult Run(const std::vector<std::string>& args) { return Finish(Start(args)); }

  std::filesystem::path home() const { return dir_.path() / "home"; }
  std::string OutFile() const { return (dir_.path() / "stdout").string(); }
  std::string ErrFile() const { return (dir_.path() / "stderr").string(); }
  std::string PidDir() {
    std::filesystem::path dir = dir_.path() / "pids";
    std::filesystem::create_directories(dir);
    return dir.string();
  }
  // A --worker-pool-spec running replica_probe.
  std::string Pool(int replicas = 1) const {
    return "--worker-pool-spec=machine-type=n1-standard-4,replica-count=" +
           std::to_string(replicas) + ",container-image-uri=local:" + ReplicaProbePath();
  }
  jobspec::JobState State(const std::string& id) {
    absl::StatusOr<jobspec::CustomJob> job = JobStore(home()).ReadJob(id);
    return job.ok() ? job->state : jobspec::JobState::kUnspecified;
  }
  // Every recorded replica and supervisor pid of `id`, plus the grandchildren.
  std::vector<int> AllPids(const std::string& id, const std::string& pid_dir) {
    std::vector<int> pids = PidsInDir(pid_dir, "grandchild-");
    absl::StatusOr<LocalJobDetails> local = JobStore(home()).ReadLocalDetails(id);
    EXPECT_TRUE(local.ok()) << local.status();
    for (const ReplicaDetails& replica : local->replicas) pids.push_back(replica.pid);
    pids.push_back(local->supervisor.pid);
    return pids;
  }
  void ExpectAllGone(const std::vector<int>& pids) {
    for (int pid : pids) {
      EXPECT_TRUE(WaitFor([pid] { return ProcessGone(pid); }, absl::Seconds(5))) << "pid " << pid;
    }
  }

  TempDir dir_;
};

TEST_F(CliTest, InvalidConfigExitsTwoNamingTheField) {
  std::filesystem::path config = dir_.path() / "job.yaml";
  ASSERT_TRUE(base::WriteFileAtomic(config,
                                    "workerPoolSpecs:\n"
                                    "  - machineSpec: {machineType: n1-standard-4}\n"
                                    "    replicaCount: 3\n"
                                    "    containerSpec: {imageUri: local:/bin/true}\n")
                  .ok());
  CliResult result = Run({"run", "--config", config.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("workerPoolSpecs[0].replicaCount"));

  ASSERT_TRUE(base::WriteFileAtomic(config,
                                    "workerPoolSpecs:\n"
                                    "  - machineSpec: {machineType: n1-standard-4}\n"
                                    "    replicaCont: 1\n")
                  .ok());
  result = Run({"run", "--config", config.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("replicaCont"));

  result = Run({"run", "--no-such-flag"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(home() / "jobs"));

  // A container image that cannot be found fails the job (exit 1), naming it.
  result = Run({"run", "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=oci:" +
                           (home() / "no-layout").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out + result.err, HasSubstr("containerSpec.imageUri: image \"oci:"));
}

TEST_F(CliTest, RunsAJobAndTheJobsCommandsShowIt) {
  CliResult run = Run({"run", Pool(), "--display-name=cli job", "--job-id=cli_job",
                       "--args=--print=hello from the cli,--stderr=on stderr"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("CustomJob created. Resource name: "
                                 "projects/local/locations/local/customJobs/cli_job"));
  EXPECT_THAT(run.out, HasSubstr("[workerpool0-0] hello from the cli\n"));
  EXPECT_THAT(run.out, HasSubstr("JOB_STATE_SUCCEEDED"));

  CliResult list = Run({"jobs", "list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_THAT(list.out, HasSubstr("DISPLAY NAME"));
  EXPECT_THAT(list.out, HasSubstr("cli_job"));
  EXPECT_THAT(list.out, HasSubstr("cli job"));
  EXPECT_THAT(list.out, HasSubstr("JOB_STATE_SUCCEEDED"));

  CliResult json = Run({"jobs", "list", "--format", "json"});
  EXPECT_EQ(json.exit_code, 0);
  nlohmann::json jobs = nlohmann::json::parse(json.out);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["state"], "JOB_STATE_SUCCEEDED");

  CliResult describe = Run({"jobs", "describe", "cli_job"});
  EXPECT_EQ(describe.exit_code, 0);
  EXPECT_THAT(describe.out, HasSubstr("\"displayName\": \"cli job\""));
  EXPECT_THAT(describe.out, HasSubstr("workerpool0-0: pid"));
  EXPECT_THAT(describe.out, HasSubstr("exited with status 0"));

  CliResult logs = Run({"jobs", "logs", "cli_job"});
  EXPECT_EQ(logs.exit_code, 0);
  EXPECT_EQ(logs.out, "[workerpool0-0] hello from the cli\n[workerpool0-0] on stderr\n");
  logs = Run({"jobs", "logs", "cli_job", "--replica", "workerpool0-0", "-f"});
  EXPECT_EQ(logs.exit_code, 0);
  EXPECT_EQ(logs.out, "hello from the cli\non stderr\n");
  logs = Run({"jobs", "logs", "cli_job", "--replica", "workerpool3-0"});
  EXPECT_EQ(logs.exit_code, 1);

  EXPECT_EQ(Run({"jobs", "describe", "no_such_job"}).exit_code, 1);
}

TEST_F(CliTest, FailedJobExitsOneAndValidateOnlyRunsNothing) {
  CliResult failed = Run({"run", Pool(), "--quiet", "--args=--print=hidden,--exit=3"});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_THAT(failed.out, HasSubstr("exited with a non-zero status of 3"));
  EXPECT_THAT(failed.out, ::testing::Not(HasSubstr("hidden")));

  CliResult validated = Run({"run", Pool(), "--validate-only", "--labels=a=b", "--display-name=v"});
  EXPECT_EQ(validated.exit_code, 0) << validated.err;
  nlohmann::json job = nlohmann::json::parse(validated.out);
  EXPECT_EQ(job["displayName"], "v");
  EXPECT_EQ(job["labels"]["a"], "b");
  EXPECT_EQ(JobStore(home()).ListJobIds()->size(), 1u);  // only the failed run
}

TEST_F(CliTest, DetachedJobCanBeCancelledLeavingNoProcess) {
  std::string pids = PidDir();
  CliResult run = Run({"run", Pool(), "--detach", "--job-id=detached",
                       "--args=--pid-dir=" + pids + ",--grandchild-sleep=60,--sleep=60"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("Job ID: detached\n"));
  EXPECT_THAT(run.out, HasSubstr("trainpkg jobs logs detached -f"));
  ASSERT_TRUE(
      WaitFor([&] { return PidsInDir(pids, "grandchild-").size() == 1; }, absl::Seconds(10)));
  ASSERT_TRUE(
      WaitFor([&] { return State("detached") == jobspec::JobState::kRunning; }, absl::Seconds(10)));
  std::vector<int> all = AllPids("detached", pids);

  CliResult cancel = Run({"jobs", "cancel", "detached"});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_THAT(cancel.out, HasSubstr("JOB_STATE_CANCELLED"));
  EXPECT_EQ(State("detached"), jobspec::JobState::kCancelled);
  ExpectAllGone(all);
}

TEST_F(CliTest, CtrlCCancelsTheJobAndExits130) {
  std::string pids = PidDir();
  pid_t cli = Start({"run", Pool(), Pool(2), "--job-id=interrupted",
                     "--args=--pid-dir=" + pids + ",--grandchild-sleep=60,--sleep=60"});
  bool finished = false;
  absl::Cleanup kill_on_failure = [&] {
    if (!finished) Finish(cli, SIGKILL);
  };
  ASSERT_TRUE(
      WaitFor([&] { return PidsInDir(pids, "grandchild-").size() == 3; }, absl::Seconds(10)));
  ASSERT_TRUE(WaitFor([&] { return State("interrupted") == jobspec::JobState::kRunning; },
                      absl::Seconds(10)));
  std::vector<int> all = AllPids("interrupted", pids);
  CliResult result = Finish(cli, SIGINT);
  finished = true;
  EXPECT_EQ(result.exit_code, 130) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("Cancelling CustomJob run"));
  EXPECT_EQ(State("interrupted"), jobspec::JobState::kCancelled);
  ExpectAllGone(all);
}

TEST_F(CliTest, VersionAndHelp) {
  CliResult version = Run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("trainpkg 0."));
  CliResult help = Run({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("run"));
  EXPECT_THAT(help.out, HasSubstr("jobs"));
}

}  // namespace
}  // namespace trainpkg::sdk
