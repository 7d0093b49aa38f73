#include "packager/run/container_user.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::run {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ContainerUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root() / "etc");
    fs::create_directories(host() / "etc");
  }
  fs::path root() const { return dir_ / "rootfs"; }
  fs::path host() const { return dir_ / "host"; }
  void Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  trainpkg::testing::TempDir dir_;
};

TEST_F(ContainerUserTest, ResolvesNamesFromTheImagesFiles) {
  Write(root() / "etc/passwd", "root:x:0:0::/root:/bin/sh\ntrainer:x:1000:1000::/home:/bin/sh\n");
  Write(root() / "etc/group", "trainer:x:1000:\nvideo:x:44:trainer\n");
  absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "trainer");
  ASSERT_THAT(user, IsOk());
  EXPECT_EQ(user->uid, 1000u);
  EXPECT_EQ(user->gid, 1000u);
  EXPECT_THAT(user->additional_gids, ElementsAre(44u));
}

// Issue 16 finding 11: an absolute link resolves inside the root, never to
// the host's file of that name.
TEST_F(ContainerUserTest, AbsoluteSymlinkResolvesInsideTheRoot) {
  Write(host() / "etc/passwd-host", "hostuser:x:4242:4242::/:/bin/sh\n");
  Write(root() / (host() / "etc/passwd-host").relative_path(), "imageuser:x:7:7::/:/bin/sh\n");
  fs::create_symlink(host() / "etc/passwd-host", root() / "etc/passwd");
  absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "hostuser");
  EXPECT_EQ(user.status().code(), absl::StatusCode::kNotFound) << "read the host's file";
  user = ResolveContainerUser(root(), "imageuser");
  ASSERT_THAT(user, IsOk());
  EXPECT_EQ(user->uid, 7u);
}

// Issue 16 finding 12: a target climbing above the root means the root
// (chroot semantics), as in the container.
TEST_F(ContainerUserTest, ClimbingSymlinkResolvesInsideTheRoot) {
  Write(root() / "data/passwd", "climber:x:99:98::/:/bin/sh\n");
  Write(dir_ / "data/passwd", "outsider:x:5:5::/:/bin/sh\n");
  fs::create_symlink("../../../../../data/passwd", root() / "etc/passwd");
  absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "climber");
  ASSERT_THAT(user, IsOk());
  EXPECT_EQ(user->uid, 99u);
  EXPECT_EQ(user->gid, 98u);
  EXPECT_EQ(ResolveContainerUser(root(), "outsider").status().code(), absl::StatusCode::kNotFound);
}

// Issue 16 finding 11: etc/passwd -> /dev/zero (a host path before the fix:
// an endless line read into memory) ends with a clear error and bounded
// memory.
TEST_F(ContainerUserTest, PasswdLinkedToDevZeroEndsWithAClearErrorAndBoundedMemory) {
  fs::create_symlink("/dev/zero", root() / "etc/passwd");
  // The same inside the root: a device node planted there (by a RUN step).
  fs::create_directories(root() / "dev");
  ASSERT_EQ(::mknod((root() / "dev/zero").c_str(), S_IFCHR | 0666, ::makedev(1, 5)), 0);
  trainpkg::testing::ChildRun run = trainpkg::testing::RunInChildMeasured(
      [&] {
        ::alarm(20);  // a hang fails the test instead of blocking it
        absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "trainer");
        if (user.ok()) return 10;
        std::fprintf(stderr, "%s\n", std::string(user.status().message()).c_str());
        std::string message(user.status().message());
        bool clear = user.status().code() == absl::StatusCode::kInvalidArgument &&
                     message.find("/etc/passwd is a character device") != std::string::npos &&
                     message.find("User \"trainer\"") != std::string::npos;
        return clear ? 0 : 11;
      },
      int64_t{2} << 30);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, 256 * 1024);
}

TEST_F(ContainerUserTest, PasswdAsAFifoFailsAtOnce) {
  ASSERT_EQ(::mkfifo((root() / "etc/passwd").c_str(), 0644), 0);
  trainpkg::testing::ChildRun run = trainpkg::testing::RunInChildMeasured([&] {
    ::alarm(20);
    absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "0");
    return !user.ok() && std::string(user.status().message()).find("is a FIFO") != std::string::npos
               ? 0
               : 11;
  });
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal << " (SIGALRM: blocked on the FIFO)";
}

TEST_F(ContainerUserTest, RefusesAnOversizedPasswd) {
  Write(root() / "etc/passwd", std::string(kMaxContainerUserFileBytes + 1, '#'));
  absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "trainer");
  EXPECT_EQ(user.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(user.status().message()),
              AllOf(HasSubstr("/etc/passwd"), HasSubstr(std::to_string(kMaxContainerUserFileBytes))));
}

TEST_F(ContainerUserTest, MissingFilesMeanNoNames) {
  absl::StatusOr<ContainerUser> user = ResolveContainerUser(root(), "1234:55");
  ASSERT_THAT(user, IsOk());
  EXPECT_EQ(user->uid, 1234u);
  EXPECT_EQ(user->gid, 55u);
  EXPECT_EQ(ResolveContainerUser(root(), "nobody").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::packager::run
