// The SSH backend end to end against real sshd on namespace hosts
// (ssh_hosts.h): the digits sample as 1 chief + 2 workers on three hosts,
// a failing worker named with its host, `jobs cancel` and a dropped
// connection leaving nothing on any host, an unreachable host failing the
// job before any replica starts. The hosts share this machine's filesystem:
// the base output directory is one path every host sees; executables are
// copied into each host's own $HOME cache.
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/environment.h"
#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/job_file.h"
#include "sdk/custom_job.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/ssh/ssh_hosts.h"
#include "tests/test_util/file.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::trainpkg::testing::IsOk;

class SshBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing::SshHosts::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  }

  void StartHosts(testing::SshHostsOptions options = {}) {
    ASSERT_THAT(hosts_.Start(options), IsOk());
  }

  // The chief's held-out accuracy from the job's output: at least 0.98,
  // printed for the test log with `what`.
  void ExpectChiefAccuracy(absl::string_view what) {
    const std::string marker = "[workerpool0-0] test_accuracy=";
    const size_t at = output_.str().find(marker);
    ASSERT_NE(at, std::string::npos) << output_.str();
    double accuracy = 0;
    ASSERT_TRUE(absl::SimpleAtod(
        output_.str().substr(at + marker.size(), output_.str().find('\n', at) - at - marker.size()),
        &accuracy));
    EXPECT_GE(accuracy, 0.98);
    std::cout << "chief's held-out accuracy" << what << ": " << accuracy << "\n";
  }

  CustomJobOptions Options() {
    CustomJobOptions options;
    options.backend = JobBackendKind::kSsh;
    options.home = dir_.path() / "home";
    options.log_stream = &output_;
    options.cancel_grace_period = absl::Seconds(3);
    options.ssh.hosts = {{"host1", 1}, {"host2", 1}, {"host3", 1}};
    options.ssh.ssh_config = hosts_.ssh_config();
    options.ssh.connect_timeout = absl::Seconds(5);
    std::map<std::string, std::string> environment = base::SnapshotProcessEnvironment();
    for (const char* name :
         {"TF_CONFIG", "CLUSTER_SPEC", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
          "AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR"}) {
      environment.erase(name);
    }
    options.environment = environment;
    return options;
  }

  // A chief and two workers that sleep, each writing its pid into `pids`.
  static jobspec::CustomJob SleepingJob(const std::filesystem::path& pids) {
    const std::string pid_dir = "--pid-dir=" + pids.string();
    return testing::MakeJob(testing::ReplicaProbePath(),
                            {{1, {pid_dir, "--sleep=120"}}, {2, {pid_dir, "--sleep=120"}}});
  }

  // Waits up to 10 s for every host to run nothing but its sshd.
  void ExpectHostsEmpty() {
    for (int h = 1; h <= 3; ++h) {
      EXPECT_TRUE(
          testing::WaitFor([&] { return hosts_.ProcessesIn(h).empty(); }, absl::Seconds(10)))
          << "host" << h << " still runs " << hosts_.ProcessesIn(h).size() << " processes: "
          << ::trainpkg::testing::Sh("ps -o pid,args -p " +
                                     [&] {
                                       std::string pids;
                                       for (int pid : hosts_.ProcessesIn(h))
                                         absl::StrAppend(&pids, pid, ",");
                                       return pids + "1";
                                     }())
                 .out;
    }
  }

  // The digits sample as an image (`trainpkg build --bundle-libs`), written
  // as an oci: layout in the test's directory, which every host sees.
  std::string BuildDigitsImage() {
    const std::filesystem::path layout = dir_.path() / "digits-layout";
    ::trainpkg::testing::ShellResult built = ::trainpkg::testing::Sh(
        "TRAINPKG_HOME=" + ::trainpkg::testing::ShellQuote((dir_.path() / "build-home").string()) +
        " " TRAINPKG_PATH " build -q --bundle-libs " DIGITS_SAMPLE
        " --env OMP_NUM_THREADS=1 --env OPENBLAS_NUM_THREADS=1 --output oci:" +
        layout.string() + ":v1");
    EXPECT_EQ(built.code, 0) << built.out;
    return "oci:" + layout.string() + ":v1";
  }

  // The sample's job (1 chief, 2 workers) on `image`, its data in the base
  // output directory (mounted into each container at the same path).
  jobspec::CustomJob DigitsImageJob(const std::string& image, const std::string& epochs) {
    absl::StatusOr<jobspec::CustomJob> spec =
        jobspec::LoadJobFile(std::string(DIGITS_SAMPLE_SOURCE_DIR) + "/job.yaml");
    EXPECT_THAT(spec, IsOk());
    const std::filesystem::path out = dir_.path() / "out";
    std::filesystem::create_directories(out);
    std::filesystem::copy_file(std::filesystem::path(DIGITS_DATA_DIR) / "digits.csv.gz",
                               out / "digits.csv.gz",
                               std::filesystem::copy_options::overwrite_existing);
    spec->job_spec.base_output_directory = out.string();
    for (jobspec::WorkerPoolSpec& pool : spec->job_spec.worker_pool_specs) {
      pool.container_spec->image_uri = image;
      for (std::string& arg : pool.container_spec->args) {
        if (absl::StartsWith(arg, "--epochs=")) arg = "--epochs=" + epochs;
      }
      pool.container_spec->args.push_back("--data=" + (out / "digits.csv.gz").string());
    }
    return *spec;
  }

  // One docker-registry per host on that host's own loopback (127.0.0.1:5000
  // in its network namespace, as a registry mirror on each machine would
  // be), all serving one storage directory; `image` (an oci: layout) pushed
  // as 127.0.0.1:5000/digits:v1 through host1's. Returns that reference.
  // (A registry on the bridge address would be reached over HTTPS: the
  // hosts' puller speaks plain HTTP to loopback registries only.)
  std::string StartHostRegistries(const std::string& image) {
    const std::filesystem::path dir = dir_.path() / "registry";
    std::filesystem::create_directories(dir / "data");
    std::ofstream(dir / "config.yml") << "version: 0.1\nlog: {level: warn}\nstorage:\n"
                                         "  filesystem: {rootdirectory: "
                                      << (dir / "data").string()
                                      << "}\nhttp:\n  addr: 127.0.0.1:5000\n"
                                         "  secret: trainpkg-test-secret\n";
    for (int h = 1; h <= 3; ++h) {
      absl::StatusOr<std::unique_ptr<base::Child>> registry = base::Spawn(base::SpawnOptions{
          .argv = {"nsenter", "--net=/run/netns/" + hosts_.netns(h), "/usr/bin/docker-registry",
                   "serve", (dir / "config.yml").string()},
          .program = "/usr/bin/nsenter",
          .environment = std::nullopt,
          .input = base::SpawnOptions::Input::kDevNull,
          .output = base::SpawnOptions::Output::kAppendToFile,
          .output_file = dir / absl::StrCat("host", h, ".log"),
      });
      EXPECT_THAT(registry, IsOk());
      if (!registry.ok()) return "";
      registries_.push_back(*std::move(registry));
      const std::string in_host = "nsenter --net=/run/netns/" + hosts_.netns(h) + " ";
      EXPECT_TRUE(testing::WaitFor(
          [&] {
            return ::trainpkg::testing::Sh(in_host + "curl -sf http://127.0.0.1:5000/v2/").code ==
                   0;
          },
          absl::Seconds(10)))
          << ::trainpkg::testing::Slurp(dir / absl::StrCat("host", h, ".log"));
    }
    const std::string reference = "127.0.0.1:5000/digits:v1";
    ::trainpkg::testing::ShellResult pushed = ::trainpkg::testing::Sh(
        "nsenter --net=/run/netns/" + hosts_.netns(1) + " env TRAINPKG_HOME=" +
        ::trainpkg::testing::ShellQuote((dir_.path() / "build-home").string()) +
        " " TRAINPKG_PATH " push -q " + image + " " + reference);
    EXPECT_EQ(pushed.code, 0) << pushed.out;
    return reference;
  }

  // Stops the registries by pid.
  void StopHostRegistries() {
    for (std::unique_ptr<base::Child>& registry : registries_) {
      registry->SignalGroup(SIGTERM);
      (void)registry->Wait(base::Child::Rest::kKill);
    }
    registries_.clear();
  }

  void TearDown() override { StopHostRegistries(); }

  // The runc containers of job `id` on this machine (which the hosts share).
  static std::vector<std::string> RuncContainers(const std::string& id) {
    std::vector<std::string> found;
    for (absl::string_view line :
         absl::StrSplit(::trainpkg::testing::Sh("runc list -q").out, '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "trainpkg-" + id + "-")) found.emplace_back(line);
    }
    return found;
  }

  testing::TempDir dir_;
  testing::SshHosts hosts_;
  std::ostringstream output_;
  std::vector<std::unique_ptr<base::Child>> registries_;
};

TEST_F(SshBackendTest, DigitsChiefAndTwoWorkersSucceedAcrossThreeHosts) {
  StartHosts();
  absl::StatusOr<jobspec::CustomJob> spec =
      jobspec::LoadJobFile(std::string(DIGITS_SAMPLE_SOURCE_DIR) + "/job.yaml");
  ASSERT_THAT(spec, IsOk());
  for (jobspec::WorkerPoolSpec& pool : spec->job_spec.worker_pool_specs) {
    pool.container_spec->image_uri = std::string("local:") + DIGITS_SAMPLE;
    // The remote login's environment, not this one's: the data directory
    // goes in the pool's env.
    pool.container_spec->env.push_back({"TRAINPKG_DATA_DIR", DIGITS_DATA_DIR});
  }
  const std::filesystem::path out = dir_.path() / "out";
  spec->job_spec.base_output_directory = out.string();
  absl::StatusOr<CustomJob> job = CustomJob::Create(*spec, Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << "\n"
      << output_.str() << hosts_.Logs();

  EXPECT_THAT(output_.str(), HasSubstr("[workerpool0-0] task=chief:0 rank=0 world_size=3"));
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-1] task=worker:1 rank=2 world_size=3"));
  ASSERT_NO_FATAL_FAILURE(ExpectChiefAccuracy(" over SSH"));
  for (const char* line : {"collectives:", "[workerpool0-0] CLUSTER_SPEC"}) {
    const size_t found = output_.str().find(line);
    if (found != std::string::npos) {
      std::cout << output_.str().substr(found, output_.str().find('\n', found) - found) << "\n";
    }
  }
  EXPECT_TRUE(std::filesystem::exists(out / "model")) << output_.str();
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(StartsWith("workertemp_")));
  }

  // Each replica on its host, at that host's address; its log in the store.
  JobClient client(JobStore(dir_.path() / "home"));
  absl::StatusOr<JobInfo> info = client.GetJob(job->job_id());
  ASSERT_THAT(info, IsOk());
  ASSERT_EQ(info->local.replicas.size(), 3u);
  for (const ReplicaDetails& replica : info->local.replicas) {
    const int h = replica.name == "workerpool0-0" ? 1 : replica.name == "workerpool1-0" ? 2 : 3;
    EXPECT_EQ(replica.host, hosts_.name(h)) << replica.name;
    EXPECT_THAT(replica.address, StartsWith(hosts_.address(h) + ":")) << replica.name;
    ASSERT_TRUE(replica.exit_status.has_value()) << replica.name;
    EXPECT_TRUE(replica.exit_status->ok()) << replica.name;
    // Run from the host's cache, copied there.
    EXPECT_THAT(replica.argv.at(0),
                StartsWith(hosts_.home(h).string() + "/.cache/trainpkg/ssh/sha256/"));
    std::ostringstream logs;
    ASSERT_THAT(WriteJobLogs(client, job->job_id(), {.replica = replica.name}, logs), IsOk());
    EXPECT_THAT(logs.str(), HasSubstr("world_size=3")) << replica.name;
  }
  // The hosts' job directories are gone; the cache stays for the next job.
  for (int h = 1; h <= 3; ++h) {
    EXPECT_TRUE(std::filesystem::is_empty(hosts_.home(h) / ".cache/trainpkg/ssh/jobs"));
  }
  ExpectHostsEmpty();
}

// The same job from a container image: each host's trainpkg (`trainpkg
// ssh-replica`) opens the oci: layout, unpacks it into that host's own
// trainpkg home and runs the replica with runc on the host's network.
TEST_F(SshBackendTest, DigitsImageRunsUnderRuncOnEachHost) {
  if (::trainpkg::testing::Sh("command -v runc").code != 0) GTEST_SKIP() << "no runc";
  StartHosts();
  const std::string image = BuildDigitsImage();
  CustomJobOptions options = Options();
  options.ssh.remote_trainpkg = TRAINPKG_PATH;
  absl::StatusOr<CustomJob> job = CustomJob::Create(DigitsImageJob(image, "30"), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << "\n"
      << output_.str() << hosts_.Logs();
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-1] task=worker:1 rank=2 world_size=3"));
  ASSERT_NO_FATAL_FAILURE(ExpectChiefAccuracy(", image over SSH"));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "out" / "model")) << output_.str();
  absl::StatusOr<JobInfo> info = JobClient(JobStore(dir_.path() / "home")).GetJob(job->job_id());
  ASSERT_THAT(info, IsOk());
  ASSERT_EQ(info->local.replicas.size(), 3u);
  for (const ReplicaDetails& replica : info->local.replicas) {
    const int h = replica.name == "workerpool0-0" ? 1 : replica.name == "workerpool1-0" ? 2 : 3;
    EXPECT_EQ(replica.host, hosts_.name(h)) << replica.name;
    EXPECT_THAT(replica.address, StartsWith(hosts_.address(h) + ":")) << replica.name;
    ASSERT_GE(replica.argv.size(), 2u);
    EXPECT_EQ(replica.argv[0], TRAINPKG_PATH);
    EXPECT_EQ(replica.argv[1], "ssh-replica");
    // Unpacked in that host's trainpkg home; nothing copied to its cache.
    EXPECT_FALSE(std::filesystem::is_empty(hosts_.home(h) / ".trainpkg" / "rootfs"));
    EXPECT_FALSE(std::filesystem::exists(hosts_.home(h) / ".cache/trainpkg/ssh/sha256"));
  }
  EXPECT_THAT(RuncContainers(job->job_id()), ::testing::IsEmpty());
  ExpectHostsEmpty();
}

// The image as a registry reference: each host's trainpkg pulls it into
// that host's own trainpkg home (its image store) before running it.
TEST_F(SshBackendTest, ARegistryImageIsPulledIntoEachHostsStore) {
  if (::trainpkg::testing::Sh("command -v runc").code != 0) GTEST_SKIP() << "no runc";
  if (::trainpkg::testing::Sh("command -v docker-registry && command -v curl").code != 0) {
    GTEST_SKIP() << "no docker-registry or curl";
  }
  StartHosts();
  const std::string reference = StartHostRegistries(BuildDigitsImage());
  ASSERT_FALSE(reference.empty());
  CustomJobOptions options = Options();
  options.ssh.remote_trainpkg = TRAINPKG_PATH;
  absl::StatusOr<CustomJob> job = CustomJob::Create(DigitsImageJob(reference, "30"), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << "\n"
      << output_.str();
  ASSERT_NO_FATAL_FAILURE(ExpectChiefAccuracy(", pulled image over SSH"));
  for (int h = 1; h <= 3; ++h) {
    // In that host's store, under the reference.
    EXPECT_THAT(::trainpkg::testing::Slurp(hosts_.home(h) / ".trainpkg/images/index.json"),
                HasSubstr("127.0.0.1:5000/digits:v1"))
        << "host" << h;
  }
  StopHostRegistries();
  EXPECT_THAT(RuncContainers(job->job_id()), ::testing::IsEmpty());
  ExpectHostsEmpty();
}

// `jobs cancel` of an image job while its three containers train: no
// container, and no process, is left on any host.
TEST_F(SshBackendTest, CancellingAnImageJobLeavesNoContainerOnAnyHost) {
  if (::trainpkg::testing::Sh("command -v runc").code != 0) GTEST_SKIP() << "no runc";
  StartHosts();
  const std::string image = BuildDigitsImage();
  CustomJobOptions options = Options();
  options.ssh.remote_trainpkg = TRAINPKG_PATH;
  absl::StatusOr<CustomJob> job = CustomJob::Create(DigitsImageJob(image, "100000"), options);
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(testing::WaitFor([&] { return RuncContainers(job->job_id()).size() == 3; },
                               absl::Seconds(60)))
      << output_.str();
  JobClient client(JobStore(dir_.path() / "home"));
  absl::StatusOr<jobspec::CustomJob> cancelled = client.CancelJob(job->job_id(), absl::Seconds(30));
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_EQ(cancelled->state, jobspec::JobState::kCancelled) << output_.str();
  EXPECT_TRUE(
      testing::WaitFor([&] { return RuncContainers(job->job_id()).empty(); }, absl::Seconds(10)))
      << ::trainpkg::testing::Sh("runc list").out;
  ExpectHostsEmpty();
}

// The two ways a host's container replica is stopped without the
// supervisor's say: its connection drops (the wrapper sends SIGTERM to
// `trainpkg ssh-replica`, which passes it to the container), and
// `trainpkg ssh-replica` itself killed by SIGKILL (as the wrapper does
// after the grace period; its host resource ledger deletes the container).
TEST_F(SshBackendTest, ImageReplicaStopsWhenItsConnectionDropsOrItsTrainpkgIsKilled) {
  if (::trainpkg::testing::Sh("command -v runc").code != 0) GTEST_SKIP() << "no runc";
  StartHosts();
  const std::string image = BuildDigitsImage();
  CustomJobOptions options = Options();
  options.ssh.remote_trainpkg = TRAINPKG_PATH;
  for (const bool drop_connection : {true, false}) {
    SCOPED_TRACE(drop_connection ? "connection dropped" : "trainpkg ssh-replica killed");
    output_.str("");
    absl::StatusOr<CustomJob> job = CustomJob::Create(DigitsImageJob(image, "100000"), options);
    ASSERT_THAT(job, IsOk());
    ASSERT_THAT(job->Submit(), IsOk());
    ASSERT_TRUE(testing::WaitFor([&] { return RuncContainers(job->job_id()).size() == 3; },
                                 absl::Seconds(60)))
        << output_.str();
    // The oldest match: the ledger's watchdog, forked from `trainpkg
    // ssh-replica`, has its command line too.
    const std::string pattern =
        drop_connection
            ? "[C]ontrolMaster=yes.*ControlPath=" + (job->job_dir() / "ssh" / "1").string() + " "
            : "^" TRAINPKG_PATH " ssh-replica .*/workerpool1-0.json";
    ::trainpkg::testing::ShellResult found =
        ::trainpkg::testing::Sh("pgrep -o -f '" + pattern + "'");
    ASSERT_EQ(found.code, 0) << found.out;
    int pid = 0;
    ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(found.out), &pid)) << found.out;
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    const absl::Time killed = absl::Now();
    const std::string container = "trainpkg-" + job->job_id() + "-workerpool1-0-";
    EXPECT_TRUE(testing::WaitFor(
        [&] {
          for (const std::string& id : RuncContainers(job->job_id())) {
            if (absl::StartsWith(id, container)) return false;
          }
          return true;
        },
        absl::Seconds(10)))
        << ::trainpkg::testing::Sh("runc list").out;
    std::cout << "workerpool1-0's container gone " << absl::FormatDuration(absl::Now() - killed)
              << " after " << (drop_connection ? "host2's connection" : "its trainpkg ssh-replica")
              << " was killed\n";
    absl::StatusOr<jobspec::CustomJob> done = job->Wait();
    ASSERT_THAT(done, IsOk());
    EXPECT_EQ(done->state, jobspec::JobState::kFailed);
    ASSERT_TRUE(done->error.has_value());
    EXPECT_THAT(done->error->message, HasSubstr("workerpool1-0@host2")) << output_.str();
    EXPECT_TRUE(
        testing::WaitFor([&] { return RuncContainers(job->job_id()).empty(); }, absl::Seconds(10)))
        << ::trainpkg::testing::Sh("runc list").out;
    ExpectHostsEmpty();
  }
}

// A host without trainpkg, or with another version, fails the job before
// any replica starts, naming the host and what it needs.
TEST_F(SshBackendTest, ImageJobNeedsTheSameTrainpkgOnEachHost) {
  StartHosts();
  jobspec::CustomJob spec = testing::MakeJob(testing::ReplicaProbePath(), {{1, {}}, {1, {}}});
  spec.job_spec.worker_pool_specs[1].container_spec->image_uri =
      "oci:" + (dir_.path() / "no-layout").string();
  CustomJobOptions options = Options();
  options.ssh.remote_trainpkg = "no-such-trainpkg";
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message, HasSubstr("Host host2 runs container images"));
  EXPECT_THAT(done->error->message, HasSubstr("--remote-trainpkg"));
  EXPECT_THAT(done->error->message, HasSubstr("\"no-such-trainpkg\" is not an executable there"));
  EXPECT_THAT(done->error->message, HasSubstr("No replica was started"));
  // Another version: /bin/echo prints "version".
  options.ssh.remote_trainpkg = "/bin/echo";
  job = CustomJob::Create(spec, options);
  ASSERT_THAT(job, IsOk());
  done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message, HasSubstr("Its /bin/echo is \"version\""));
  ExpectHostsEmpty();
}

// 1 chief and 2 workers where workerpool1-0 (on host2) exits 3 at once.
TEST_F(SshBackendTest, FailingWorkerFailsTheJobNamingItAndItsHost) {
  StartHosts();
  jobspec::CustomJob spec =
      testing::MakeJob(testing::ReplicaProbePath(), {{1, {"--sleep=60"}}, {2, {"--sleep=60"}}});
  jobspec::ContainerSpec& workers = *spec.job_spec.worker_pool_specs[1].container_spec;
  workers.command = {"/bin/sh", "-c",
                     "if echo \"$CLUSTER_SPEC\" | grep -q '\"index\": *0[,}]'; then "
                     "echo worker zero fails >&2; exit 3; fi; exec \"$0\" --sleep=60",
                     testing::ReplicaProbePath()};
  workers.args.clear();
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed) << output_.str();
  ASSERT_TRUE(done->error.has_value());
  EXPECT_EQ(done->error->code, 3);
  EXPECT_THAT(done->error->message,
              HasSubstr("The replica workerpool1-0@host2 exited with a non-zero status of 3"));
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-0] worker zero fails"));
  ExpectHostsEmpty();
}

// scheduling.restartJobOnWorkerRestart: workerpool1-0 (on host2) exits 3
// the first time (no marker yet), so every replica on every host is
// stopped and started again; the second time it succeeds, and so does the job.
TEST_F(SshBackendTest, RestartJobOnWorkerRestartRestartsEveryReplicaOnEveryHost) {
  StartHosts();
  const testing::TempDir markers;
  const std::string marker = (markers.path() / "workerpool1-0-failed").string();
  jobspec::CustomJob spec = testing::MakeJob(testing::ReplicaProbePath(),
                                             {{1, {"--print=chief-done"}}, {2, {"--print=done"}}});
  jobspec::ContainerSpec& workers = *spec.job_spec.worker_pool_specs[1].container_spec;
  workers.command = {"/bin/sh", "-c",
                     "if echo \"$CLUSTER_SPEC\" | grep -q '\"index\": *0[,}]' && [ ! -e " + marker +
                         " ]; then touch " + marker +
                         "; echo worker zero fails once >&2; exit 3; fi; "
                         "exec \"$0\" --sleep=1 --print=worker-done",
                     testing::ReplicaProbePath()};
  workers.args.clear();
  spec.job_spec.scheduling.emplace().restart_job_on_worker_restart = true;
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << "\n"
      << output_.str();
  EXPECT_TRUE(std::filesystem::exists(marker));
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-0] worker zero fails once"));
  EXPECT_THAT(output_.str(),
              HasSubstr("The replica workerpool1-0@host2 exited with a non-zero status of 3"));
  EXPECT_THAT(output_.str(), HasSubstr("Restarting all replicas (restart 1 of at most 3)."));
  EXPECT_THAT(output_.str(), ::testing::Not(HasSubstr("(restart 2 of")));
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-0] worker-done"));
  absl::StatusOr<JobInfo> info = JobClient(JobStore(dir_.path() / "home")).GetJob(job->job_id());
  ASSERT_THAT(info, IsOk());
  ASSERT_EQ(info->local.replicas.size(), 3u);
  for (const ReplicaDetails& replica : info->local.replicas) {
    EXPECT_EQ(replica.restarts, 1) << replica.name;
    ASSERT_TRUE(replica.exit_status.has_value()) << replica.name;
    EXPECT_TRUE(replica.exit_status->ok()) << replica.name;
  }
  ExpectHostsEmpty();
}

TEST_F(SshBackendTest, JobsCancelLeavesNoProcessOnAnyHost) {
  StartHosts();
  const testing::TempDir pids;
  absl::StatusOr<CustomJob> job = CustomJob::Create(SleepingJob(pids.path()), Options());
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(testing::WaitFor(
      [&] { return testing::PidsInDir(pids.path(), "replica-").size() == 3; }, absl::Seconds(30)))
      << output_.str();
  // As `trainpkg jobs cancel` does it: through the job store.
  JobClient client(JobStore(dir_.path() / "home"));
  absl::StatusOr<jobspec::CustomJob> cancelled = client.CancelJob(job->job_id(), absl::Seconds(30));
  ASSERT_THAT(cancelled, IsOk());
  EXPECT_EQ(cancelled->state, jobspec::JobState::kCancelled) << output_.str();
  for (int pid : testing::PidsInDir(pids.path(), "replica-")) {
    EXPECT_TRUE(testing::ProcessGone(pid)) << "replica pid " << pid;
  }
  ExpectHostsEmpty();
}

TEST_F(SshBackendTest, DroppedConnectionKillsTheRemoteReplicaWithinTenSeconds) {
  StartHosts();
  const testing::TempDir pids;
  jobspec::CustomJob spec =
      testing::MakeJob(testing::ReplicaProbePath(),
                       {{1, {"--pid-dir=" + (pids.path() / "chief").string(), "--sleep=120"}},
                        {1, {"--pid-dir=" + (pids.path() / "worker").string(), "--sleep=120"}}});
  std::filesystem::create_directories(pids.path() / "chief");
  std::filesystem::create_directories(pids.path() / "worker");
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(testing::WaitFor(
      [&] { return testing::PidsInDir(pids.path() / "worker", "replica-").size() == 1; },
      absl::Seconds(30)))
      << output_.str();
  const int worker = testing::PidsInDir(pids.path() / "worker", "replica-")[0];
  // host2's master connection (its ControlPath is <job dir>/ssh/1), killed
  // as a network failure would end it.
  const std::string control = (job->job_dir() / "ssh" / "1").string();
  ::trainpkg::testing::ShellResult master =
      ::trainpkg::testing::Sh("pgrep -f '[C]ontrolMaster=yes.*ControlPath=" + control + " '");
  ASSERT_EQ(master.code, 0) << master.out;
  int master_pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(master.out), &master_pid)) << master.out;
  ASSERT_EQ(::kill(master_pid, SIGKILL), 0);
  const absl::Time killed = absl::Now();
  EXPECT_TRUE(testing::WaitFor([&] { return testing::ProcessGone(worker); }, absl::Seconds(10)))
      << "workerpool1-0 (pid " << worker << ") still runs on host2";
  std::cout << "workerpool1-0 gone " << absl::FormatDuration(absl::Now() - killed)
            << " after host2's connection was killed\n";
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message, HasSubstr("workerpool1-0@host2")) << output_.str();
  ExpectHostsEmpty();
}

TEST_F(SshBackendTest, UnreachableHostFailsTheJobBeforeAnyReplicaStarts) {
  StartHosts({.hosts = 3, .without_sshd = {3}});
  const testing::TempDir pids;
  absl::StatusOr<CustomJob> job = CustomJob::Create(SleepingJob(pids.path()), Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message, HasSubstr("host host3 is unreachable"));
  EXPECT_THAT(done->error->message, HasSubstr("Connection refused"));
  EXPECT_THAT(done->error->message, HasSubstr("No replica was started"));
  EXPECT_TRUE(testing::PidsInDir(pids.path(), "replica-").empty());
  ExpectHostsEmpty();
}

// The command line: `trainpkg run --backend ssh` with a hostfile, then
// `jobs describe` and `jobs logs` reading what it recorded.
TEST_F(SshBackendTest, TrainpkgRunWithAHostfileAndTheJobsCommands) {
  StartHosts();
  using ::trainpkg::testing::ShellQuote;
  const std::filesystem::path hostfile = dir_.path() / "hosts";
  std::ofstream(hostfile) << "# two hosts\nhost2 slots=1\nhost3 slots=2\n";
  const std::string env = "TRAINPKG_HOME=" + ShellQuote((dir_.path() / "cli-home").string()) + " ";
  const std::string pool = "--worker-pool-spec=machine-type=n1-standard-4,replica-count=";
  const std::string image = ",container-image-uri=local:" + testing::ReplicaProbePath();
  ::trainpkg::testing::ShellResult run = ::trainpkg::testing::Sh(
      env + TRAINPKG_PATH + " run --backend ssh --hostfile " + ShellQuote(hostfile.string()) +
      " --ssh-config " + ShellQuote(hosts_.ssh_config().string()) + " --job-id ssh_42 " + pool +
      "1" + image + " " + pool + "2" + image + " --args=--print=hello-from-ssh");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("JOB_STATE_SUCCEEDED"));
  ::trainpkg::testing::ShellResult logs =
      ::trainpkg::testing::Sh(env + TRAINPKG_PATH + " jobs logs ssh_42 --replica workerpool1-1");
  EXPECT_EQ(logs.out, "hello-from-ssh\n");
  ::trainpkg::testing::ShellResult describe =
      ::trainpkg::testing::Sh(env + TRAINPKG_PATH + " jobs describe ssh_42");
  EXPECT_THAT(describe.out, HasSubstr("workerpool1-1: on host3 (ssh pid "));
  EXPECT_THAT(describe.out, HasSubstr(hosts_.address(2) + ":"));
  ::trainpkg::testing::ShellResult list =
      ::trainpkg::testing::Sh(env + TRAINPKG_PATH + " jobs list");
  EXPECT_THAT(list.out, HasSubstr("ssh"));
  // A second job finds the executable in host3's cache: nothing is copied.
  const std::filesystem::path sha256 = hosts_.home(3) / ".cache/trainpkg/ssh/sha256";
  ASSERT_TRUE(std::filesystem::exists(sha256));
  const std::filesystem::path cached =
      std::filesystem::directory_iterator(sha256)->path() / "replica_probe";
  struct stat before {};
  ASSERT_EQ(::stat(cached.c_str(), &before), 0) << cached;
  ::trainpkg::testing::ShellResult again = ::trainpkg::testing::Sh(
      env + TRAINPKG_PATH + " run --backend ssh --hostfile " + ShellQuote(hostfile.string()) +
      " --ssh-config " + ShellQuote(hosts_.ssh_config().string()) + " " + pool + "1" + image + " " +
      pool + "2" + image);
  ASSERT_EQ(again.code, 0) << again.out;
  struct stat after {};
  ASSERT_EQ(::stat(cached.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "copied again";
  // A detached job's logs followed until it ends (`jobs logs -f`).
  ::trainpkg::testing::ShellResult detached = ::trainpkg::testing::Sh(
      env + TRAINPKG_PATH + " run --detach --backend ssh --hosts host1 --ssh-config " +
      ShellQuote(hosts_.ssh_config().string()) + " --job-id ssh_44 " + pool + "1" + image +
      " --args=--print=early,--sleep=2,--print=late");
  ASSERT_EQ(detached.code, 0) << detached.out;
  ::trainpkg::testing::ShellResult followed =
      ::trainpkg::testing::Sh(env + TRAINPKG_PATH + " jobs logs -f ssh_44 --replica workerpool0-0");
  EXPECT_EQ(followed.code, 0) << followed.out;
  EXPECT_EQ(followed.out, "early\nlate\n");
  // The flags of another backend, and no hosts at all, are refused.
  EXPECT_THAT(
      ::trainpkg::testing::Sh(env + TRAINPKG_PATH + " run --backend ssh " + pool + "1" + image).out,
      HasSubstr("--hosts: required with --backend ssh"));
  EXPECT_THAT(
      ::trainpkg::testing::Sh(env + TRAINPKG_PATH + " run --hosts a:1 " + pool + "1" + image).out,
      HasSubstr("--hosts: only applies with --backend ssh"));
  ExpectHostsEmpty();
}

// The supervising `trainpkg run` killed outright: its ssh clients die with
// it, and each host's wrapper stops its replica.
TEST_F(SshBackendTest, ADeadSupervisorLeavesNothingOnAnyHost) {
  StartHosts();
  const testing::TempDir pids;
  const std::string image = ",container-image-uri=local:" + testing::ReplicaProbePath();

  std::map<std::string, std::string> env = base::SnapshotProcessEnvironment();
  env["TRAINPKG_HOME"] = (dir_.path() / "cli-home").string();
  absl::StatusOr<std::unique_ptr<base::Child>> run = base::Spawn(base::SpawnOptions{
      .argv = {TRAINPKG_PATH, "run", "--backend", "ssh", "--hosts", "host1:1,host2:1,host3:1",
               "--ssh-config", hosts_.ssh_config().string(),
               "--worker-pool-spec=machine-type=n1-standard-4,replica-count=1" + image,
               "--worker-pool-spec=machine-type=n1-standard-4,replica-count=2" + image,
               "--args=--pid-dir=" + pids.path().string() + ",--sleep=120"},
      .program = TRAINPKG_PATH,
      .environment = env,
      .input = base::SpawnOptions::Input::kDevNull,
      .output = base::SpawnOptions::Output::kAppendToFile,
      .output_file = dir_.path() / "run.out",
  });
  ASSERT_THAT(run, IsOk());
  ASSERT_TRUE(testing::WaitFor(
      [&] { return testing::PidsInDir(pids.path(), "replica-").size() == 3; }, absl::Seconds(30)))
      << ::trainpkg::testing::Slurp(dir_.path() / "run.out");
  const absl::Time killed = absl::Now();
  ASSERT_EQ(::kill((*run)->pid(), SIGKILL), 0);  // the process alone, not its group
  (void)(*run)->Wait(base::Child::Rest::kLeave);
  for (int pid : testing::PidsInDir(pids.path(), "replica-")) {
    EXPECT_TRUE(testing::WaitFor([&] { return testing::ProcessGone(pid); }, absl::Seconds(10)))
        << "replica pid " << pid;
  }
  std::cout << "replicas gone " << absl::FormatDuration(absl::Now() - killed)
            << " after the supervisor was killed\n";
  ExpectHostsEmpty();
}

// --no-copy: the executable runs at its own path (a shared filesystem).
TEST_F(SshBackendTest, NoCopyRunsTheExecutableWhereItIs) {
  StartHosts();
  CustomJobOptions options = Options();
  options.ssh.copy_executables = false;
  absl::StatusOr<CustomJob> job = CustomJob::Create(
      testing::MakeJob(testing::ReplicaProbePath(), {{1, {"--print=no-copy"}}}), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << output_.str();
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool0-0] no-copy"));
  absl::StatusOr<JobInfo> info = JobClient(JobStore(dir_.path() / "home")).GetJob(job->job_id());
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->local.replicas.at(0).argv.at(0), testing::ReplicaProbePath());
  EXPECT_FALSE(std::filesystem::exists(hosts_.home(1) / ".cache/trainpkg/ssh/sha256"));
}

TEST_F(SshBackendTest, TooFewSlotsFailBeforeAnythingIsRecorded) {
  CustomJobOptions options = Options();
  options.ssh.hosts = {{"host1", 2}};
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob(testing::ReplicaProbePath(), {{1, {}}, {2, {}}}), options);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(job.status().message(),
              HasSubstr("the job has 3 replicas but the hosts give 2 slots"));
  // What this backend does not do yet is refused, not ignored.
  jobspec::CustomJob python = testing::MakeJob(testing::ReplicaProbePath(), {{1, {}}, {1, {}}});
  python.job_spec.worker_pool_specs[1].container_spec.reset();
  python.job_spec.worker_pool_specs[1].python_package_spec.emplace();
  python.job_spec.worker_pool_specs[1].python_package_spec->executor_image_uri = "python:3";
  python.job_spec.worker_pool_specs[1].python_package_spec->package_uris = {"/tmp/x.tar.gz"};
  python.job_spec.worker_pool_specs[1].python_package_spec->python_module = "trainer.task";
  EXPECT_THAT(CustomJob::Create(python, Options()).status().message(),
              HasSubstr("a pythonPackageSpec pool is not built over SSH"));
}

}  // namespace
}  // namespace trainpkg::sdk
