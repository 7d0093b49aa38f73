// RuncContainerLauncher with real runc: a busybox container in a bundle of
// its own, watched with TryWait as the Slurm backend watches salloc, and the
// spec fields a container cannot honour.
#include "sdk/local/internal/runc_container_launcher.h"

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/run/container_bundle.h"
#include "sdk/internal/posix_process_launcher.h"
#include "tests/sdk/container_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::local::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::trainpkg::testing::IsOk;

const std::map<std::string, std::string> kRuncEnv = {
    {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}};

class RuncContainerLauncherTest : public sdk::testing::ContainerTestBase {
 protected:
  std::string id() const { return absl::StrCat("tp-launcher-test-", ::getpid()); }
  fs::path control() const { return dir_.path() / "control"; }
  fs::path bundle() const { return dir_.path() / "bundle"; }

  // A container on context() (which holds /bin/busybox) running `script`,
  // with control() mounted at the same path.
  RuncContainer Container(const std::string& script) {
    fs::create_directories(control());
    packager::run::ContainerBundle spec;
    spec.bundle_dir = bundle();
    spec.rootfs = context();
    spec.args = {"/bin/busybox", "sh", "-c", script};
    spec.bind_mounts = {control()};
    spec.hostname = "launcher-test";
    EXPECT_THAT(packager::run::WriteContainerBundle(spec), IsOk());
    return RuncContainer{.id = id(), .bundle_dir = bundle(), .env = kRuncEnv};
  }

  std::shared_ptr<ProcessLauncher> posix_ = std::make_shared<sdk::internal::PosixProcessLauncher>();
};

TEST_F(RuncContainerLauncherTest, TryWaitIsEmptyWhileTheContainerRunsThenDeletesIt) {
  const std::string script = absl::StrCat(
      "/bin/busybox touch ", (control() / "started").string(), "; while [ ! -e ",
      (control() / "go").string(), " ]; do /bin/busybox sleep 0.05; done; exit 7");
  RuncContainer container = Container(script);
  RuncContainerLauncher launcher(posix_, container);
  absl::StatusOr<std::unique_ptr<Process>> process =
      launcher.Start(RuncRunSpec("replica", container));
  ASSERT_THAT(process, IsOk());

  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!fs::exists(control() / "started") && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(fs::exists(control() / "started")) << "the container never ran its script";
  EXPECT_EQ((*process)->TryWait(), std::nullopt);
  EXPECT_THAT(RuncContainers(id()), ElementsAre(id()));
  EXPECT_TRUE(fs::exists(bundle()));

  sdk::testing::WriteContextFile(control() / "go", "");
  std::optional<ExitStatus> status;
  while (!status.has_value() && absl::Now() < deadline) {
    status = (*process)->TryWait();
    if (!status.has_value()) absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(status.has_value()) << "runc did not exit within 30s";
  EXPECT_EQ(*status, (ExitStatus{.code = 7}));
  EXPECT_THAT(RuncContainers(id()), IsEmpty());
  EXPECT_FALSE(fs::exists(bundle()));
}

TEST(RuncContainerLauncherSpecTest, RefusesOutlivingTheCallerOrAnOutputFileAndRemovesTheBundle) {
  trainpkg::testing::TempDir dir;
  for (bool outlives : {true, false}) {
    const fs::path bundle = dir.path() / "bundle";
    fs::create_directories(bundle);
    RuncContainer container{.id = "tp-refused", .bundle_dir = bundle, .env = kRuncEnv};
    RuncContainerLauncher launcher(std::make_shared<sdk::internal::PosixProcessLauncher>(),
                                   container);
    ProcessSpec spec = RuncRunSpec("replica", container);
    if (outlives) {
      spec.outlives_caller = true;
    } else {
      spec.append_output_to = dir.path() / "out.log";
    }
    absl::Status status = launcher.Start(spec).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
    EXPECT_THAT(status.message(), HasSubstr("starting replica"));
    EXPECT_FALSE(fs::exists(bundle));
    EXPECT_FALSE(fs::exists(dir.path() / "out.log"));
  }
}

}  // namespace
}  // namespace trainpkg::sdk::local::internal
