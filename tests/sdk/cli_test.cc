// The trainpkg binary end to end: flags, exit codes, jobs commands, --detach
// and Ctrl-C, with replica_probe as the trainer.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <regex>
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
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
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
    std::map<std::string, std::string> extra_env = extra_env_;
    extra_env["TRAINPKG_HOME"] = home().string();
    std::vector<std::string> env = testing::EnvironmentWith(extra_env);
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
    EXPECT_THAT(local, IsOk());
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
  std::map<std::string, std::string> extra_env_;  // on top of this process's and TRAINPKG_HOME
};

// A display name that clears the screen, homes the cursor and sets the
// terminal's title, as a job file or a REST request may carry it.
constexpr char kAttackName[] =
    "\x1b[2J\x1b[H\x1b]0;owned\x07"
    "evil";

// True when `text` holds a byte a terminal acts on: a C0 control other than
// '\n', DEL, or a C1 control (U+0080..U+009F).
bool HasControls(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      return true;
    }
  }
  return false;
}

// The permission bits of `path` (not following a last symlink).
mode_t ModeOf(const std::filesystem::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Every directory under (and including) `home` is 0700, every file 0600.
void ExpectPrivateTree(const std::filesystem::path& home) {
  EXPECT_EQ(ModeOf(home), 0700u) << home;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(home)) {
    const mode_t expected = entry.is_directory() ? 0700u : 0600u;
    EXPECT_EQ(ModeOf(entry.path()), expected)
        << entry.path() << " is " << std::oct << ModeOf(entry.path());
  }
}

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

TEST_F(CliTest, ScaleTierStandard1ValidatesToTheTablesPools) {
  CliResult validated = Run({"run", "--scale-tier", "STANDARD_1",
                             "--master-image-uri=local:" + ReplicaProbePath(), "--validate-only"});
  ASSERT_EQ(validated.exit_code, 0) << validated.err;
  nlohmann::json pools = nlohmann::json::parse(validated.out)["jobSpec"]["workerPoolSpecs"];
  ASSERT_EQ(pools.size(), 3u) << pools.dump();
  const std::vector<std::pair<std::string, int>> table = {
      {"n1-highcpu-8", 1}, {"n1-highcpu-8", 4}, {"n1-standard-4", 3}};
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(pools[i]["machineSpec"]["machineType"], table[i].first) << i;
    EXPECT_EQ(pools[i]["replicaCount"].dump(), "\"" + std::to_string(table[i].second) + "\"") << i;
    EXPECT_EQ(pools[i]["containerSpec"]["imageUri"], "local:" + ReplicaProbePath()) << i;
  }
  auto ids = JobStore(home()).ListJobIds();
  EXPECT_TRUE(!ids.ok() || ids->empty());  // nothing ran

  CliResult conflict = Run({"run", "--scale-tier=basic", Pool(), "--validate-only"});
  EXPECT_EQ(conflict.exit_code, 2);
  EXPECT_THAT(conflict.err, HasSubstr("--scale-tier and --worker-pool-spec"));
  CliResult tpu = Run({"run", "--scale-tier=BASIC_TPU", "--master-image-uri=local:/bin/true"});
  EXPECT_EQ(tpu.exit_code, 2);
  EXPECT_THAT(tpu.err, HasSubstr("Cloud TPU"));

  CliResult help = Run({"run", "--help"});
  // --help is wrapped to the terminal (80 columns in a pipe): read it as one line.
  EXPECT_THAT(std::regex_replace(help.out, std::regex(R"(\s+)"), " "),
              HasSubstr("--scale-tier STANDARD_1"));
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

// Finding 5 of issue 16: job fields reach the terminal escaped; replica
// output stays as the program wrote it.
TEST_F(CliTest, JobFieldsAreShownEscapedButReplicaLogsRaw) {
  CliResult run =
      Run({"run", Pool(), "--job-id=attack", std::string("--display-name=") + kAttackName,
           "--labels=team=\xc2\x9b"
           "31mred",
           "--args=--print=\x1b[1mbold\x1b[0m"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  CliResult list = Run({"jobs", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_FALSE(HasControls(list.out)) << list.out;
  EXPECT_THAT(list.out,
              HasSubstr("attack  \\x1b[2J\\x1b[H\\x1b]0;owned\\x07evil  JOB_STATE_SUCCEEDED"));

  CliResult json = Run({"jobs", "list", "--format", "json"});
  EXPECT_FALSE(HasControls(json.out)) << json.out;
  EXPECT_EQ(nlohmann::json::parse(json.out)[0]["displayName"], kAttackName);

  CliResult describe = Run({"jobs", "describe", "attack"});
  EXPECT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_FALSE(HasControls(describe.out)) << describe.out;
  // Label values may hold any non-ASCII character, the C1 CSI (U+009B) too.
  EXPECT_THAT(describe.out, HasSubstr(R"("team": "\u009b31mred")"));
  EXPECT_THAT(describe.out, HasSubstr(R"(--print=\x1b[1mbold\x1b[0m)"));

  // The replica's own output, live and in `jobs logs`, is what it printed.
  EXPECT_THAT(run.out, HasSubstr("[workerpool0-0] \x1b[1mbold\x1b[0m\n"));
  CliResult logs = Run({"jobs", "logs", "attack"});
  EXPECT_EQ(logs.out, "[workerpool0-0] \x1b[1mbold\x1b[0m\n");

  // An error quoting a job's text keeps its lines, not its controls.
  CliResult bad = Run({"run", Pool(), "--labels=\x1b[2Jkey\nline=v"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_FALSE(HasControls(bad.err)) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("\\x1b[2Jkey"));
}

// Finding 17 of issue 16: the job store holds env values (API keys) and
// replica logs; nobody else may read it, whatever the umask.
TEST_F(CliTest, JobStoreIsPrivateWhateverTheUmask) {
  // A home an older trainpkg left 0755 is narrowed by any jobs command.
  std::filesystem::create_directories(home() / "jobs");
  ASSERT_EQ(::chmod(home().c_str(), 0755), 0);
  ASSERT_EQ(::chmod((home() / "jobs").c_str(), 0755), 0);
  EXPECT_EQ(Run({"jobs", "list"}).exit_code, 0);
  EXPECT_EQ(ModeOf(home()), 0700u);
  EXPECT_EQ(ModeOf(home() / "jobs"), 0700u);

  const std::filesystem::path config = dir_.path() / "job.yaml";
  ASSERT_TRUE(base::WriteFileAtomic(config,
                                    "workerPoolSpecs:\n"
                                    "  - machineSpec: {machineType: n1-standard-4}\n"
                                    "    replicaCount: 1\n"
                                    "    containerSpec:\n"
                                    "      imageUri: local:" +
                                        ReplicaProbePath() +
                                        "\n"
                                        "      args: [--print=a log line]\n"
                                        "      env: [{name: API_KEY, value: s3cr3t}]\n")
                  .ok());
  for (mode_t mask : {mode_t{022}, mode_t{0}}) {
    const mode_t old = ::umask(mask);
    const std::string id = "private" + std::to_string(mask);
    CliResult run = Run({"run", "--config", config.string(), "--job-id=" + id});
    CliResult detached = Run({"run", Pool(), "--detach", "--job-id=" + id + "_detached"});
    ::umask(old);
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    ASSERT_EQ(detached.exit_code, 0) << detached.err;
    ASSERT_TRUE(
        WaitFor([&] { return jobspec::IsTerminal(State(id + "_detached")); }, absl::Seconds(10)));
    EXPECT_TRUE(std::filesystem::exists(JobStore(home()).LogFile(id, "workerpool0-0")));
    EXPECT_TRUE(
        std::filesystem::exists(JobStore(home()).JobDir(id + "_detached") / "supervisor.log"));
    ExpectPrivateTree(home());
  }
}

// Finding 19 of issue 16: `k8s render` prints no registry password unless
// asked (--include-pull-secret); by default the pods name the secret and
// stderr says how to create it.
TEST_F(CliTest, K8sRenderLeavesThePullSecretOutUnlessAsked) {
  const std::filesystem::path docker = dir_.path() / "docker";
  ASSERT_TRUE(
      base::WriteFileAtomic(docker / "config.json",
                            R"({"auths":{"localhost:5000":{"auth":"dGVzdGVyOnMzY3JldA=="}}})")
          .ok());
  extra_env_["DOCKER_CONFIG"] = docker.string();
  const std::vector<std::string> render = {
      "k8s",
      "render",
      "--job-id",
      "demo",
      "--namespace",
      "ml",
      "--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,"
      "container-image-uri=localhost:5000/team/trainer:v1"};
  const auto pod_of = [](const nlohmann::json& list) {
    return list["items"]
        .back()["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
  };

  CliResult plain = Run(render);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_THAT(plain.out, Not(HasSubstr("dockerconfigjson")));
  nlohmann::json list = nlohmann::json::parse(plain.out);
  for (const nlohmann::json& item : list["items"]) EXPECT_NE(item["kind"], "Secret");
  EXPECT_EQ(pod_of(list)["imagePullSecrets"][0]["name"], "demo-registry");
  EXPECT_THAT(plain.err, HasSubstr("kubectl create secret generic demo-registry --namespace ml "
                                   "--type=kubernetes.io/dockerconfigjson"));
  EXPECT_THAT(plain.err, HasSubstr("--include-pull-secret"));

  std::vector<std::string> include = render;
  include.push_back("--include-pull-secret");
  CliResult with_secret = Run(include);
  ASSERT_EQ(with_secret.exit_code, 0) << with_secret.err;
  list = nlohmann::json::parse(with_secret.out);
  EXPECT_EQ(list["items"][0]["kind"], "Secret");
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "demo-registry");
  EXPECT_EQ(with_secret.err, "");
  // The credentials, as the Secret carries them (base64 of a docker config
  // holding the base64 auth), are in that output only.
  const std::string encoded = list["items"][0]["data"][".dockerconfigjson"].get<std::string>();
  ASSERT_FALSE(encoded.empty());
  EXPECT_THAT(with_secret.out, HasSubstr(encoded));
  EXPECT_THAT(plain.out, Not(HasSubstr(encoded)));

  std::vector<std::string> none = render;
  none.push_back("--no-pull-secret");
  CliResult without = Run(none);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_FALSE(pod_of(nlohmann::json::parse(without.out)).contains("imagePullSecrets"));
  none.push_back("--include-pull-secret");
  EXPECT_EQ(Run(none).exit_code, 2);
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
