#include "base/bounded_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::base {
namespace {

using ::testing::HasSubstr;

TEST(BoundedFileTest, ReadsASmallRegularFile) {
  testing::TempDir dir;
  std::ofstream(dir / "token") << "abc\n";
  absl::StatusOr<std::string> text = ReadRegularFile(dir / "token");
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(*text, "abc\n");
}

TEST(BoundedFileTest, DevZeroAndFifosEndWithAnErrorInsteadOfForever) {
  absl::StatusOr<std::string> zero = ReadRegularFile("/dev/zero", {.what = "a token file"});
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("not a regular file; a token file must be"));

  testing::TempDir dir;
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  absl::StatusOr<std::string> fifo = ReadRegularFile(dir / "fifo");  // would block without a writer
  ASSERT_FALSE(fifo.ok());
  EXPECT_THAT(fifo.status().message(), HasSubstr("not a regular file"));
}

TEST(BoundedFileTest, LargerThanTheCapIsRefused) {
  testing::TempDir dir;
  std::ofstream(dir / "big") << std::string(5000, 'x');
  absl::StatusOr<std::string> text = ReadRegularFile(dir / "big", {.max_bytes = 4096});
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("larger than 4096 bytes"));
}

TEST(BoundedFileTest, SymlinksAreFollowedOnlyWhenAllowed) {
  testing::TempDir dir;
  std::ofstream(dir / "real") << "v";
  std::filesystem::create_symlink(dir / "real", dir / "link");
  EXPECT_THAT(ReadRegularFile(dir / "link"), IsOk());
  absl::StatusOr<std::string> refused =
      ReadRegularFile(dir / "link", {.follow_symlinks = false, .what = "a metric file"});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("a symbolic link; a metric file"));
}

}  // namespace
}  // namespace trainpkg::base
