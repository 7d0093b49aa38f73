// packager/run/mount_point_trace.h on plain directories: a "rootfs" as it
// was before the container, and an "upper" holding what runc and overlayfs
// would have left there.
#include "packager/run/mount_point_trace.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::run {
namespace {

namespace fs = std::filesystem;

class MountPointTraceTest : public ::testing::Test {
 protected:
  void Touch(const fs::path& path, const std::string& content = "") {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }
  fs::path root() const { return dir_ / "rootfs"; }
  fs::path upper() const { return dir_ / "upper"; }

  trainpkg::testing::TempDir dir_;
};

TEST_F(MountPointTraceTest, RemovesMadeMountPointsAndUntouchedCopiedUpDirectories) {
  fs::create_directories(root() / "etc");
  fs::create_directories(root() / "proc");
  ::chmod((root() / "etc").c_str(), 0755);
  const std::string destinations[] = {"/proc", "/dev", "/etc/hosts"};
  MountPointTrace trace = MountPointTrace::Record(root(), destinations);
  // runc made /dev and /etc/hosts; overlayfs copied /etc up for the latter.
  fs::create_directories(upper() / "dev");
  Touch(upper() / "etc/hosts");
  ::chmod((upper() / "etc").c_str(), 0755);
  ASSERT_THAT(trace.RemoveFrom(upper()), IsOk());
  EXPECT_TRUE(fs::is_empty(upper()));
}

TEST_F(MountPointTraceTest, KeepsWhatTheCommandWrote) {
  fs::create_directories(root() / "etc");
  ::chmod((root() / "etc").c_str(), 0755);
  const std::string destinations[] = {"/etc/hosts", "/srv/x"};
  MountPointTrace trace = MountPointTrace::Record(root(), destinations);
  Touch(upper() / "etc/hosts");
  Touch(upper() / "etc/new", "written\n");  // the command's
  Touch(upper() / "srv/x", "not empty\n");  // no mount point is ever written to
  ASSERT_THAT(trace.RemoveFrom(upper()), IsOk());
  EXPECT_FALSE(fs::exists(upper() / "etc/hosts"));
  EXPECT_TRUE(fs::exists(upper() / "etc/new"));
  EXPECT_TRUE(fs::exists(upper() / "srv/x"));
}

TEST_F(MountPointTraceTest, KeepsACopiedUpDirectoryWhoseModeTheCommandChanged) {
  fs::create_directories(root() / "etc");
  ::chmod((root() / "etc").c_str(), 0755);
  const std::string destinations[] = {"/etc/hosts"};
  MountPointTrace trace = MountPointTrace::Record(root(), destinations);
  Touch(upper() / "etc/hosts");
  ::chmod((upper() / "etc").c_str(), 0700);
  ASSERT_THAT(trace.RemoveFrom(upper()), IsOk());
  EXPECT_FALSE(fs::exists(upper() / "etc/hosts"));
  EXPECT_TRUE(fs::is_directory(upper() / "etc"));
}

TEST_F(MountPointTraceTest, FollowsSymlinksInsideTheRootOnly) {
  fs::create_directories(root() / "etc");
  ::chmod((root() / "etc").c_str(), 0755);
  fs::create_symlink("../run/systemd/resolve/stub-resolv.conf", root() / "etc/resolv.conf");
  // Absolute, and climbing above the root: both stay inside it.
  fs::create_symlink("/../../../../srv/hosts", root() / "etc/hosts");
  // A loop ends after Linux's 40 links, as a path lookup would.
  fs::create_symlink("loop", root() / "etc/loop");
  const std::string destinations[] = {"/etc/resolv.conf", "/etc/hosts", "/etc/loop"};
  MountPointTrace trace = MountPointTrace::Record(root(), destinations);
  Touch(upper() / "run/systemd/resolve/stub-resolv.conf");
  Touch(upper() / "srv/hosts");
  ASSERT_THAT(trace.RemoveFrom(upper()), IsOk());
  EXPECT_TRUE(fs::is_empty(upper()));
}

}  // namespace
}  // namespace trainpkg::packager::run
