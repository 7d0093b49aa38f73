// What a job's container may reach and leave behind (issue 16, finding 6):
// no service on the host's 127.0.0.1 (unless the job opts into the host
// network), no set-id file or device node in the host's output directory
// (nosuid,nodev mounts, no CAP_MKNOD, set-id modes refused), Docker-like
// seccomp and capabilities, the replica's name as host name. Needs root and
// runc.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/run/resolv_conf.h"
#include "tests/sdk/container_test_util.h"
#include "tests/test_util/loopback_listener.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class ContainerIsolationTest : public testing::ContainerTestBase {
 protected:
  // A job of `counts` replicas running `script` with busybox sh.
  jobspec::CustomJob ShellJob(const std::vector<int>& counts, const std::string& script) {
    const std::string image = BuildImage("sh:1",
                                         "FROM scratch\n"
                                         "COPY bin/busybox /bin/busybox\n"
                                         "ENTRYPOINT [\"/bin/busybox\", \"sh\", \"-c\"]\n");
    return MakeContainerJob(image, counts, {script});
  }

  std::string ReplicaLog(const std::string& replica) const {
    return testing::Slurp(job_dir_ / "logs" / (replica + ".log"));
  }

  // The options field of the mountinfo line whose mount point is `path`.
  static std::string MountOptions(const std::string& mountinfo, const fs::path& path) {
    std::istringstream lines(mountinfo);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string id, parent, device, root, mount_point, options;
      fields >> id >> parent >> device >> root >> mount_point >> options;
      if (fs::path(mount_point) == path) return options;
    }
    return "(not mounted)";
  }
};

TEST_F(ContainerIsolationTest, ReplicaReachesNoHostLoopbackService) {
  trainpkg::testing::LoopbackListener host_service;
  absl::StatusOr<jobspec::CustomJob> done = RunJob(
      ShellJob({1}, "/bin/busybox timeout 3 /bin/busybox nc 127.0.0.1 " +
                        std::to_string(host_service.port()) + " </dev/null || echo unreachable"));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_EQ(host_service.Accepted(), 0) << "a replica reached the host's 127.0.0.1";
  EXPECT_THAT(ReplicaLog("workerpool0-0"), HasSubstr("unreachable"));
  ExpectNothingLeft();
}

TEST_F(ContainerIsolationTest, HostNetworkIsAnOptIn) {
  trainpkg::testing::LoopbackListener host_service;
  jobspec::CustomJob spec =
      ShellJob({1}, "/bin/busybox timeout 3 /bin/busybox nc 127.0.0.1 " +
                        std::to_string(host_service.port()) +
                        " </dev/null; /bin/busybox cat /etc/resolv.conf; true");
  CustomJobOptions options = Options();
  options.host_network = true;
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, options);
  ASSERT_THAT(job, IsOk());
  job_dir_ = job->job_dir();
  job_id_ = job->job_id();
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_EQ(host_service.Accepted(), 1);
  // On the host's network, the host's resolver configuration as it is
  // (loopback nameservers included), as Docker gives --network=host.
  absl::StatusOr<std::string> host_conf =
      packager::run::ReadHostResolvConf(packager::run::kHostResolvConf);
  ASSERT_THAT(host_conf, IsOk());
  EXPECT_THAT(ReplicaLog("workerpool0-0"), HasSubstr(*host_conf));
  ExpectNothingLeft();
}

TEST_F(ContainerIsolationTest, ReplicaCannotPlantSetIdFilesOrDevicesInTheOutputDirectory) {
  fs::create_directories(output_dir());
  const std::string out = output_dir().string();
  absl::StatusOr<jobspec::CustomJob> done = RunJob(ShellJob(
      {1}, "echo x > " + out + "/suid; /bin/busybox chmod 4755 " + out +
               "/suid || echo chmod refused; /bin/busybox mknod " + out +
               "/blk b 7 0 || echo mknod refused; /bin/busybox cat /proc/self/mountinfo > " + out +
               "/mountinfo; true"));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  struct stat st;
  ASSERT_EQ(::stat((output_dir() / "suid").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0u) << std::oct << st.st_mode;
  EXPECT_FALSE(::lstat((output_dir() / "blk").c_str(), &st) == 0 && S_ISBLK(st.st_mode))
      << "a block device was planted in the output directory";
  const std::string options =
      MountOptions(testing::Slurp(output_dir() / "mountinfo"), output_dir());
  EXPECT_THAT(options, HasSubstr("nosuid"));
  EXPECT_THAT(options, HasSubstr("nodev"));
  EXPECT_THAT(ReplicaLog("workerpool0-0"), HasSubstr("chmod refused"));
  EXPECT_THAT(ReplicaLog("workerpool0-0"), HasSubstr("mknod refused"));
  ExpectNothingLeft();
}

TEST_F(ContainerIsolationTest, ReplicaRunsUnderSeccompWithItsNameAsHostName) {
  absl::StatusOr<jobspec::CustomJob> done =
      RunJob(ShellJob({1, 1}, "/bin/busybox cat /proc/self/status; /bin/busybox hostname"));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  for (const std::string replica : {"workerpool0-0", "workerpool1-0"}) {
    const std::string log = ReplicaLog(replica);
    EXPECT_THAT(log, HasSubstr("Seccomp:\t2\n")) << replica;
    EXPECT_THAT(log, HasSubstr("NoNewPrivs:\t1\n")) << replica;
    EXPECT_THAT(log, HasSubstr("\n" + replica + "\n")) << replica;
    const size_t at = log.find("CapBnd:");
    ASSERT_NE(at, std::string::npos) << log;
    const uint64_t caps = std::stoull(log.substr(at + 7), nullptr, 16);
    EXPECT_EQ(caps & (1ULL << 13), 0u) << "CAP_NET_RAW kept";
    EXPECT_EQ(caps & (1ULL << 27), 0u) << "CAP_MKNOD kept";
  }
  ExpectNothingLeft();
}

// Like Docker's containers, every replica gets an /etc/hosts naming itself
// and its peers (all on 127.0.0.1, in the job's namespace) and an
// /etc/resolv.conf: the host's without loopback nameservers, which would be
// the namespace's own loopback. Both are one read-only file per job, gone
// with it.
TEST_F(ContainerIsolationTest, ReplicasResolveThemselvesAndTheirPeersByName) {
  testing::WriteContextFile(context() / "etc/nsswitch.conf", "hosts: files dns\n");
  const std::string image = BuildImage("resolve:1",
                                       "FROM scratch\n"
                                       "COPY bin/busybox /bin/busybox\n"
                                       "COPY etc/nsswitch.conf /etc/nsswitch.conf\n"
                                       "ENTRYPOINT [\"/bin/busybox\", \"sh\", \"-c\"]\n");
  // nc resolves the name, then names the address it was refused on.
  jobspec::CustomJob spec = MakeContainerJob(
      image, {1, 2},
      {"/bin/busybox cat /etc/hosts /etc/resolv.conf; for peer in workerpool0-0 workerpool1-0 "
       "workerpool1-1 $(/bin/busybox hostname); do /bin/busybox nc -w 1 $peer 1 </dev/null; done; "
       "echo hosts >> /etc/hosts || echo read-only; true"});
  absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  absl::StatusOr<std::string> host_conf =
      packager::run::ReadHostResolvConf(packager::run::kHostResolvConf);
  ASSERT_THAT(host_conf, IsOk());
  for (const std::string replica : {"workerpool0-0", "workerpool1-0", "workerpool1-1"}) {
    const std::string log = ReplicaLog(replica);
    EXPECT_THAT(log, HasSubstr("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost "
                               "ip6-loopback\n127.0.0.1\tworkerpool0-0\n127.0.0.1\tworkerpool1-0\n"
                               "127.0.0.1\tworkerpool1-1\n" +
                               packager::run::ResolvConfWithoutLoopback(*host_conf)))
        << replica;
    EXPECT_THAT(log, Not(HasSubstr("bad address"))) << replica;
    size_t resolved = 0;
    for (size_t at = 0; (at = log.find("remote host (127.0.0.1)", at)) != std::string::npos; ++at) {
      ++resolved;
    }
    EXPECT_EQ(resolved, 4u) << replica << ": " << log;
    EXPECT_THAT(log, HasSubstr("read-only")) << replica;
  }
  ExpectNothingLeft();
}

}  // namespace
}  // namespace trainpkg::sdk
