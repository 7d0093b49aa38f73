#include "base/file_util.h"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include "base/private_file.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::base {
namespace {

namespace fs = std::filesystem;

class FileUtilTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("trainpkg_file_util_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileUtilTest, WriteAtomicCreatesParentsAndReadsBack) {
  fs::path path = dir_ / "a" / "b" / "file.txt";
  ASSERT_THAT(WriteFileAtomic(path, "hello\n"), IsOk());
  auto read = ReadFile(path);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, "hello\n");
}

mode_t ModeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST_F(FileUtilTest, OwnerOnlyFilesAre0600WhateverTheUmask) {
  for (mode_t mask : {mode_t{022}, mode_t{0}, mode_t{0277}}) {
    const mode_t old = ::umask(mask);
    const fs::path written = dir_ / ("written" + std::to_string(mask));
    const fs::path appended = dir_ / ("appended" + std::to_string(mask));
    EXPECT_THAT(WriteFileAtomicPrivate(written, "secret"), IsOk());
    EXPECT_THAT(AppendToFilePrivate(appended, "secret\n"), IsOk());
    ::umask(old);
    EXPECT_EQ(ModeOf(written), 0600u) << "umask " << mask;
    EXPECT_EQ(ModeOf(appended), 0600u) << "umask " << mask;
  }
  // An existing, wider file is narrowed when appended to or replaced.
  const fs::path old_log = dir_ / "old.log";
  ASSERT_THAT(AppendToFile(old_log, "a\n"), IsOk());
  ASSERT_EQ(::chmod(old_log.c_str(), 0644), 0);
  ASSERT_THAT(AppendToFilePrivate(old_log, "b\n"), IsOk());
  EXPECT_EQ(ModeOf(old_log), 0600u);
  EXPECT_EQ(*ReadFile(old_log), "a\nb\n");
}

TEST_F(FileUtilTest, WriteAtomicReplacesAndLeavesNoTemporaries) {
  fs::path path = dir_ / "file.txt";
  ASSERT_THAT(WriteFileAtomic(path, "one"), IsOk());
  ASSERT_THAT(WriteFileAtomic(path, "two"), IsOk());
  EXPECT_EQ(*ReadFile(path), "two");
  EXPECT_EQ(::trainpkg::testing::CountEntries(dir_), 1);
}

TEST_F(FileUtilTest, WriteAtomicWithoutSyncReplacesToo) {
  fs::path path = dir_ / "cache.json";
  ASSERT_THAT(WriteFileAtomic(path, "one", FileSync::kNoSync), IsOk());
  ASSERT_THAT(WriteFileAtomic(path, "two", FileSync::kNoSync), IsOk());
  EXPECT_EQ(*ReadFile(path), "two");
  EXPECT_EQ(::trainpkg::testing::CountEntries(dir_), 1);
}

TEST_F(FileUtilTest, ReadMissingIsNotFoundAndNamesPath) {
  auto read = ReadFile(dir_ / "missing");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(read.status().message().find("missing"), std::string::npos);
}

TEST_F(FileUtilTest, AppendAppends) {
  fs::path path = dir_ / "log";
  ASSERT_THAT(AppendToFile(path, "a\n"), IsOk());
  ASSERT_THAT(AppendToFile(path, "b\n"), IsOk());
  EXPECT_EQ(*ReadFile(path), "a\nb\n");
}

TEST(ErrnoToStatusTest, MapsCommonCodes) {
  EXPECT_EQ(ErrnoToStatus(ENOENT, "x").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ErrnoToStatus(EACCES, "x").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoToStatus(EIO, "x").code(), absl::StatusCode::kInternal);
  EXPECT_NE(ErrnoToStatus(ENOENT, "opening f").message().find("opening f: "), std::string::npos);
}

}  // namespace
}  // namespace trainpkg::base
