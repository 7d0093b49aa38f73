// `trainpkg build` and `trainpkg images` as a user runs them: progress lines,
// the cached rebuild, the local store listing, --output layouts, and exit
// codes for a Dockerfile error (1, with file:line) and bad flags (2).
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/shell.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using Result = trainpkg::testing::ShellResult;

class CliBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "trainpkg-cli-build-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "ctx/trainer");
    std::ofstream(dir_ / "ctx/trainer/task.py") << "print('hi')\n";
    std::ofstream(dir_ / "ctx/Dockerfile")
        << "FROM scratch\n"
           "WORKDIR /app\n"
           "COPY trainer /app/trainer/\n"
           "ENTRYPOINT [\"python3\", \"-m\", \"trainer.task\"]\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result Trainpkg(const std::string& args) {
    std::string command =
        "TRAINPKG_HOME='" + (dir_ / "home").string() + "' " TRAINPKG_PATH " " + args;
    return trainpkg::testing::Sh(command);
  }

  fs::path dir_;
};

TEST_F(CliBuildTest, BuildsTagsListsAndRebuildsFromCache) {
  Result first = Trainpkg("build -t trainer:v1 " + (dir_ / "ctx").string());
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_THAT(first.out, HasSubstr("[1/4] FROM scratch\n"));
  EXPECT_THAT(first.out, HasSubstr("[3/4] COPY trainer /app/trainer/ ("));
  EXPECT_THAT(first.out, HasSubstr("1 layer(s) written, 0 cached"));
  EXPECT_THAT(first.out, HasSubstr("tagged docker.io/library/trainer:v1"));

  Result second = Trainpkg("build -t trainer:v1 --output oci:" + (dir_ / "out").string() + ":v1 " +
                           (dir_ / "ctx").string());
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_THAT(second.out, HasSubstr("[3/4] COPY trainer /app/trainer/ (cached)"));
  EXPECT_THAT(second.out, HasSubstr("0 layer(s) written, 1 cached"));
  EXPECT_TRUE(fs::exists(dir_ / "out/index.json"));

  Result images = Trainpkg("images");
  ASSERT_EQ(images.code, 0) << images.out;
  EXPECT_THAT(images.out, HasSubstr("REPOSITORY"));
  EXPECT_THAT(images.out, HasSubstr("trainer"));
  EXPECT_THAT(images.out, HasSubstr("v1"));
  EXPECT_THAT(images.out, HasSubstr("1970-01-01T00:00:00Z"));
}

TEST_F(CliBuildTest, DockerfileErrorExitsOneWithTheLine) {
  std::ofstream(dir_ / "ctx/Dockerfile.run") << "FROM scratch\nCOPY missing.txt /m\n";
  Result r = Trainpkg("build -f " + (dir_ / "ctx/Dockerfile.run").string() + " " +
                      (dir_ / "ctx").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("trainpkg: error: "));
  EXPECT_THAT(r.out, HasSubstr("Dockerfile.run:2: COPY: source \"missing.txt\" not found"));
}

TEST_F(CliBuildTest, BadFlagsExitTwo) {
  EXPECT_EQ(Trainpkg("build --build-arg NOEQUALS " + (dir_ / "ctx").string()).code, 2);
  EXPECT_EQ(Trainpkg("build --output docker:x " + (dir_ / "ctx").string()).code, 2);
  EXPECT_EQ(Trainpkg("build").code, 2);
}

}  // namespace
