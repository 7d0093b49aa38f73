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
using ::testing::Not;

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
  EXPECT_THAT(first.out, HasSubstr("layers stored uncompressed; `trainpkg push` compresses them"));

  Result second = Trainpkg("build -t trainer:v1 " + (dir_ / "ctx").string());
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_THAT(second.out, HasSubstr("[3/4] COPY trainer /app/trainer/ (cached)"));
  EXPECT_THAT(second.out, HasSubstr("0 layer(s) written, 1 cached"));

  // An output layout gets gzip layers: another layer, cached in turn.
  const std::string with_output = "build -t trainer:v1 --output oci:" + (dir_ / "out").string() +
                                  ":v1 " + (dir_ / "ctx").string();
  Result third = Trainpkg(with_output);
  ASSERT_EQ(third.code, 0) << third.out;
  EXPECT_THAT(third.out, HasSubstr("1 layer(s) written, 0 cached"));
  EXPECT_THAT(third.out, Not(HasSubstr("stored uncompressed")));
  EXPECT_TRUE(fs::exists(dir_ / "out/index.json"));
  Result fourth = Trainpkg(with_output);
  ASSERT_EQ(fourth.code, 0) << fourth.out;
  EXPECT_THAT(fourth.out, HasSubstr("0 layer(s) written, 1 cached"));

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
  Result level = Trainpkg("build --compression-level 13 " + (dir_ / "ctx").string());
  EXPECT_EQ(level.code, 2);
  EXPECT_THAT(level.out, HasSubstr("gzip compression level 13 is outside 1..12"));
  EXPECT_EQ(
      Trainpkg("build --compression zstd --compression-level 20 " + (dir_ / "ctx").string()).code,
      2);
  Result none_level =
      Trainpkg("build --compression none --compression-level 3 " + (dir_ / "ctx").string());
  EXPECT_EQ(none_level.code, 2);
  EXPECT_THAT(none_level.out, HasSubstr("an uncompressed layer has no compression level"));
}

TEST_F(CliBuildTest, BadNetworkFlagsExitTwoNamingTheFlagAndValue) {
  const std::string ctx = (dir_ / "ctx").string();
  for (const char* bad : {"db", "db:10.0.0.300", "d b:10.0.0.1", ":10.0.0.1"}) {
    Result r = Trainpkg(std::string("build --add-host '") + bad + "' " + ctx);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.out, HasSubstr(std::string("--add-host \"") + bad + "\"")) << bad;
    EXPECT_THAT(r.out, HasSubstr("expected NAME:IP")) << bad;
  }
  Result host = Trainpkg("build --network host " + ctx);
  EXPECT_EQ(host.code, 2);
  EXPECT_THAT(host.out, HasSubstr("--network \"host\": expected default"));
  EXPECT_THAT(host.out, HasSubstr("RUN never shares the host's network"));
  EXPECT_EQ(Trainpkg("build --network bridge " + ctx).code, 2);
  Result ok = Trainpkg("build --network none --add-host db:10.0.0.5 --add-host v6:[::1] " + ctx);
  EXPECT_EQ(ok.code, 0) << ok.out;
  Result help = Trainpkg("build --help");
  EXPECT_THAT(help.out, HasSubstr("--add-host"));
  EXPECT_THAT(help.out, Not(HasSubstr("--network=host")));
}

TEST_F(CliBuildTest, CompressionLevelChangesTheLayerAndItsCacheKey) {
  const std::string ctx = (dir_ / "ctx").string();
  std::ofstream(dir_ / "ctx/trainer/data.txt") << std::string(200000, 'a') + "tail\n";
  Result six = Trainpkg("build -q --compression gzip " + ctx);
  Result one = Trainpkg("build -q --compression-level 1 " + ctx);
  Result six_again = Trainpkg("build -q --compression-level 6 " + ctx);
  Result stored = Trainpkg("build -q " + ctx);
  Result none = Trainpkg("build -q --compression none " + ctx);
  ASSERT_EQ(six.code, 0) << six.out;
  ASSERT_EQ(one.code, 0) << one.out;
  ASSERT_EQ(six_again.code, 0) << six_again.out;
  ASSERT_EQ(stored.code, 0) << stored.out;
  ASSERT_EQ(none.code, 0) << none.out;
  EXPECT_NE(one.out, six.out);        // another layer digest, so another manifest
  EXPECT_EQ(six_again.out, six.out);  // 6 is gzip's default level
  EXPECT_NE(stored.out, six.out);     // stored only: uncompressed
  EXPECT_EQ(none.out, stored.out);
}

}  // namespace
