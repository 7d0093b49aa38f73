#include "sdk/internal/find_executable.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::internal {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

void WriteFile(const fs::path& path, fs::perms perms) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\n";
  fs::permissions(path, perms);
}

TEST(FindExecutableTest, TheFirstExecutableFileOnThePathInOrder) {
  sdk::testing::TempDir dir;
  WriteFile(dir.path() / "a" / "train", fs::perms::owner_read);  // not executable
  fs::create_directories(dir.path() / "b" / "train");            // a directory
  WriteFile(dir.path() / "c" / "train", fs::perms::owner_all);
  WriteFile(dir.path() / "d" / "train", fs::perms::owner_all);
  const std::string path = (dir.path() / "a").string() + "::" + (dir.path() / "b").string() + ":" +
                           (dir.path() / "c").string() + ":" + (dir.path() / "d").string();
  absl::StatusOr<std::string> found = FindExecutable("train", path);
  ASSERT_THAT(found, IsOk());
  EXPECT_EQ(*found, (dir.path() / "c" / "train").string());
}

// POSIX reads an empty element as the current directory; a job's program
// must not depend on where it was started.
TEST(FindExecutableTest, AnEmptyElementIsNotTheCurrentDirectory) {
  sdk::testing::TempDir dir;
  WriteFile(dir.path() / "train", fs::perms::owner_all);
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  absl::StatusOr<std::string> found = FindExecutable("train", "::");
  fs::current_path(before);
  EXPECT_THAT(found, StatusIs(absl::StatusCode::kNotFound));
}

TEST(FindExecutableTest, NotFoundNamesTheProgram) {
  sdk::testing::TempDir dir;
  WriteFile(dir.path() / "a" / "train", fs::perms::owner_read);
  EXPECT_THAT(FindExecutable("train", ":" + (dir.path() / "a").string()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("executable train not found")));
  EXPECT_THAT(FindExecutable("", "/bin"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(FindExecutableTest, APathIsCheckedAsGiven) {
  sdk::testing::TempDir dir;
  WriteFile(dir.path() / "train", fs::perms::owner_read);
  EXPECT_THAT(FindExecutable((dir.path() / "train").string(), "/bin"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("not an executable")));
  EXPECT_THAT(FindExecutable((dir.path() / "missing").string(), "/bin"),
              StatusIs(absl::StatusCode::kNotFound));
  fs::permissions(dir.path() / "train", fs::perms::owner_all);
  EXPECT_THAT(FindExecutable((dir.path() / "train").string(), ""), IsOk());
}

}  // namespace
}  // namespace trainpkg::sdk::internal
