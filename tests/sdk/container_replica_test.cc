// Container mode's pure parts: args and env rules, User resolution, GPU
// slices, the runtime bundle's config.json.
#include "sdk/local/internal/container_replica.h"

#include <errno.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "packager/run/container_bundle.h"
#include "packager/run/container_user.h"
#include "packager/run/seccomp_profile.h"
#include "sdk/local/internal/gpu_inventory.h"
#include "sdk/internal/restart_policy.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::local::internal {
namespace {

using packager::run::ContainerBundle;
using packager::run::ContainerUser;
using packager::run::ResolveContainerUser;
using packager::run::WriteContainerBundle;

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

void Write(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << content;
}

sdk::internal::ReplicaPlan Plan(std::vector<std::string> command, std::vector<std::string> args) {
  sdk::internal::ReplicaPlan plan;
  plan.program_field = "jobSpec.workerPoolSpecs[0].containerSpec.imageUri";
  plan.image = *jobspec::ImageUri::Parse("trainer:1");
  plan.command = std::move(command);
  plan.args = std::move(args);
  return plan;
}

TEST(ContainerArgsTest, CommandReplacesEntrypointArgsReplaceCmd) {
  oci::ContainerConfig image;
  image.entrypoint = {"/bin/train"};
  image.cmd = {"--default"};
  EXPECT_THAT(*ContainerArgs(Plan({}, {}), image), ElementsAre("/bin/train", "--default"));
  EXPECT_THAT(*ContainerArgs(Plan({}, {"--x"}), image), ElementsAre("/bin/train", "--x"));
  EXPECT_THAT(*ContainerArgs(Plan({"sh"}, {}), image), ElementsAre("sh"));
  EXPECT_THAT(*ContainerArgs(Plan({"sh"}, {"-c", "y"}), image), ElementsAre("sh", "-c", "y"));
  image.entrypoint.clear();
  EXPECT_THAT(*ContainerArgs(Plan({}, {}), image), ElementsAre("--default"));
  image.cmd.clear();
  absl::Status status = ContainerArgs(Plan({}, {}), image).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("neither Entrypoint nor Cmd"));
}

TEST(ContainerEnvTest, ImageThenContainerSpecThenClusterEnv) {
  oci::ContainerConfig image;
  image.env = {"A=image", "B=image", "TF_CONFIG=image"};
  sdk::internal::ReplicaPlan plan = Plan({}, {});
  plan.env = {{"B", "spec-$(A)"}, {"C", "c"}};
  std::vector<std::string> env = ContainerEnv(plan, image, {{"TF_CONFIG", "{}"}});
  EXPECT_THAT(env, ElementsAre("A=image", "B=spec-image", "C=c",
                               "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                               "TF_CONFIG={}"));
  image.env = {"PATH=/opt/bin"};
  EXPECT_THAT(ContainerEnv(Plan({}, {}), image, {}), ElementsAre("PATH=/opt/bin"));
}

class ContainerUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Write(dir_.path() / "etc/passwd",
          "root:x:0:0:root:/root:/bin/sh\ntrainer:x:1000:1001::/home/t:/bin/sh\n");
    Write(dir_.path() / "etc/group", "root:x:0:\ntrainers:x:1001:\nvideo:x:44:trainer,other\n");
  }
  absl::StatusOr<ContainerUser> Resolve(const std::string& user) {
    return ResolveContainerUser(dir_.path(), user);
  }
  testing::TempDir dir_;
};

TEST_F(ContainerUserTest, ResolvesNamesAndNumbersInTheRootfs) {
  absl::StatusOr<ContainerUser> user = Resolve("trainer");
  ASSERT_THAT(user, IsOk());
  EXPECT_EQ(user->uid, 1000u);
  EXPECT_EQ(user->gid, 1001u);
  EXPECT_THAT(user->additional_gids, ElementsAre(44u));
  user = Resolve("1000:44");
  EXPECT_EQ(user->uid, 1000u);
  EXPECT_EQ(user->gid, 44u);
  user = Resolve("trainer:video");
  EXPECT_EQ(user->gid, 44u);
  user = Resolve("4242");  // not in passwd: gid 0
  EXPECT_EQ(user->uid, 4242u);
  EXPECT_EQ(user->gid, 0u);
  user = Resolve("");
  EXPECT_EQ(user->uid, 0u);
}

TEST_F(ContainerUserTest, UnknownNamesAreNotFound) {
  EXPECT_EQ(Resolve("nobody").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Resolve("nobody").status().message(), HasSubstr("/etc/passwd"));
  EXPECT_EQ(Resolve("trainer:nogroup").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Resolve(":1").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuInventoryTest, CudaVisibleDevicesOrTheDriversList) {
  EXPECT_THAT(LocalGpus({{"CUDA_VISIBLE_DEVICES", "2, 3"}}), ElementsAre("2", "3"));
  testing::TempDir dir;
  fs::create_directories(dir.path() / "0000:01:00.0");
  fs::create_directories(dir.path() / "0000:02:00.0");
  EXPECT_THAT(LocalGpus({}, dir.path()), ElementsAre("0", "1"));
  EXPECT_THAT(LocalGpus({}, dir.path() / "absent"), IsEmpty());
}

TEST(GpuInventoryTest, AssignsDisjointSlicesAndRefusesTooMany) {
  std::vector<sdk::internal::ReplicaPlan> plans(3);
  plans[0].ref = {.pool = 0, .index = 0};
  plans[0].accelerator_count = 2;
  plans[1].ref = {.pool = 1, .index = 0};
  plans[2].ref = {.pool = 1, .index = 1};
  plans[2].accelerator_count = 1;
  auto slices = AssignGpus(plans, {"0", "1", "2"});
  ASSERT_THAT(slices, IsOk());
  EXPECT_THAT(*slices, ElementsAre(ElementsAre("0", "1"), IsEmpty(), ElementsAre("2")));
  absl::Status status = AssignGpus(plans, {"0", "1"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("jobSpec.workerPoolSpecs[1].machineSpec.acceleratorCount: replica "
                        "workerpool1-1 asks for 1 GPU(s) but only 0 of the job's 3 fit; this "
                        "machine has 2 GPU(s) (0,1)"));
}

TEST(ContainerBundleTest, WritesAReadOnlySharedRootAndPerReplicaTmp) {
  testing::TempDir dir;
  ContainerBundle bundle{
      .bundle_dir = dir.path() / "bundle",
      .rootfs = dir.path() / "rootfs",
      .args = {"/bin/train", "--x"},
      .env = {"A=1"},
      .cwd = "/work",
      .user = ContainerUser{.uid = 7, .gid = 8, .additional_gids = {9}},
      .bind_mounts = {dir.path() / "out"},
      .devices = {},
      .readonly_rootfs = true,
      .private_tmp = true,
      .readonly_files = {},
      .hostname = "workerpool1-0",
      .network_namespace = "/run/netns/trainpkg-1-2",
      .protect_host_files = true,
      .shared_shm = {},
  };
  ASSERT_THAT(WriteContainerBundle(bundle), IsOk());
  std::ifstream in(bundle.bundle_dir / "config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  EXPECT_EQ(config["root"]["path"], bundle.rootfs.string());
  EXPECT_EQ(config["root"]["readonly"], true);
  EXPECT_EQ(config["process"]["args"], nlohmann::json({"/bin/train", "--x"}));
  EXPECT_EQ(config["process"]["cwd"], "/work");
  EXPECT_EQ(config["process"]["user"]["uid"], 7);
  EXPECT_EQ(config["process"]["user"]["additionalGids"], nlohmann::json({9}));
  std::vector<std::string> namespaces;
  for (const auto& ns : config["linux"]["namespaces"]) namespaces.push_back(ns["type"]);
  EXPECT_THAT(namespaces, ElementsAre("pid", "ipc", "mount", "uts", "network"));
  EXPECT_EQ(config["linux"]["namespaces"][4]["path"], "/run/netns/trainpkg-1-2");
  EXPECT_EQ(config["hostname"], "workerpool1-0");
  std::vector<std::string> mounts;
  for (const auto& mount : config["mounts"]) {
    if (mount["type"] != "bind") continue;
    mounts.push_back(mount["destination"].get<std::string>() + "<-" +
                     mount["source"].get<std::string>());
    EXPECT_THAT(mount["options"], AllOf(Contains("nosuid"), Contains("nodev"))) << mount.dump();
  }
  EXPECT_THAT(mounts, Contains("/tmp<-" + (bundle.bundle_dir / "tmp").string()));
  EXPECT_THAT(mounts,
              Contains((dir.path() / "out").string() + "<-" + (dir.path() / "out").string()));
  EXPECT_TRUE(fs::is_directory(bundle.bundle_dir / "tmp"));
  const nlohmann::json& caps = config["process"]["capabilities"]["bounding"];
  EXPECT_THAT(caps, Contains("CAP_CHOWN"));
  for (const char* dropped : {"CAP_NET_RAW", "CAP_MKNOD", "CAP_SETFCAP", "CAP_SYS_ADMIN"}) {
    EXPECT_THAT(caps, Not(Contains(dropped)));
  }
  EXPECT_EQ(config["process"]["noNewPrivileges"], true);
  EXPECT_EQ(config["linux"]["seccomp"]["defaultAction"], "SCMP_ACT_ERRNO");
  // /dev/shm: a tmpfs of its own by default; the job's directory when shared.
  auto shm_mount = [&] {
    std::ifstream file(bundle.bundle_dir / "config.json");
    const nlohmann::json written = nlohmann::json::parse(file);
    for (const auto& mount : written["mounts"]) {
      if (mount["destination"] == "/dev/shm") return mount;
    }
    return nlohmann::json();
  };
  EXPECT_EQ(shm_mount()["type"], "tmpfs");
  bundle.shared_shm = dir.path() / "shm";
  ASSERT_THAT(WriteContainerBundle(bundle), IsOk());
  const nlohmann::json shared = shm_mount();
  EXPECT_EQ(shared["type"], "bind");
  EXPECT_EQ(shared["source"], (dir.path() / "shm").string());
  EXPECT_THAT(shared["options"], AllOf(Contains("nosuid"), Contains("nodev"), Contains("noexec")));
}

// The seccomp allowlist: ordinary calls in, the ones Docker's default
// profile keeps from a container without CAP_SYS_ADMIN out; set-id modes
// refused only where asked.
TEST(SeccompProfileTest, AllowsOrdinaryCallsAndLeavesOutPrivilegedOnes) {
  auto rules_for = [](const nlohmann::json& profile, const std::string& name) {
    std::vector<nlohmann::json> rules;
    for (const nlohmann::json& rule : profile["syscalls"]) {
      for (const nlohmann::json& n : rule["names"]) {
        if (n == name) rules.push_back(rule);
      }
    }
    return rules;
  };
  const nlohmann::json profile = packager::run::SeccompProfile({});
  EXPECT_EQ(profile["defaultAction"], "SCMP_ACT_ERRNO");
  EXPECT_EQ(profile["defaultErrnoRet"], EPERM);
  for (const char* allowed :
       {"read", "openat", "clone", "socket", "futex", "execve", "getrandom"}) {
    auto rules = rules_for(profile, allowed);
    ASSERT_FALSE(rules.empty()) << allowed;
    EXPECT_EQ(rules[0]["action"], "SCMP_ACT_ALLOW") << allowed;
  }
  for (const char* denied : {"mount", "umount2", "unshare", "setns", "pivot_root", "bpf", "keyctl",
                             "init_module", "kexec_load", "perf_event_open", "reboot",
                             "open_by_handle_at", "io_uring_setup", "userfaultfd"}) {
    EXPECT_TRUE(rules_for(profile, denied).empty()) << denied;
  }
  EXPECT_EQ(rules_for(profile, "clone3").at(0)["errnoRet"], ENOSYS);
  EXPECT_FALSE(rules_for(profile, "fchmodat").at(0).contains("args"));
  const nlohmann::json guarded = packager::run::SeccompProfile({.forbid_set_id_modes = true});
  const nlohmann::json fchmodat = rules_for(guarded, "fchmodat").at(0);
  EXPECT_EQ(fchmodat["args"][0]["index"], 2);
  EXPECT_EQ(fchmodat["args"][0]["value"], 06000);
  EXPECT_EQ(fchmodat["args"][0]["op"], "SCMP_CMP_MASKED_EQ");
  EXPECT_EQ(rules_for(guarded, "openat2").at(0)["errnoRet"], ENOSYS);
}

TEST(RestartPolicyTest, BoundedAndOffWithDisableRetries) {
  using sdk::internal::JobRestartBudget;
  using sdk::internal::kMaxJobRestarts;
  jobspec::CustomJobSpec spec;
  EXPECT_EQ(JobRestartBudget(spec), 0);
  spec.scheduling.emplace().restart_job_on_worker_restart = true;
  EXPECT_EQ(JobRestartBudget(spec), kMaxJobRestarts);
  spec.scheduling->disable_retries = true;
  EXPECT_EQ(JobRestartBudget(spec), 0);
}

}  // namespace
}  // namespace trainpkg::sdk::local::internal
