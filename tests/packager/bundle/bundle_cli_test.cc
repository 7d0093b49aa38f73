// `trainpkg build --bundle-libs` as a user runs it: into the local store and
// a layout, the same digest twice, and the flag combinations it refuses
// (exit 2, nothing built).
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/shell.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using trainpkg::packager::builder::testing::ScratchDir;

using Result = trainpkg::testing::ShellResult;

class BundleCliTest : public ::testing::Test {
 protected:
  Result Trainpkg(const std::string& args) {
    std::string command = "TRAINPKG_HOME='" + (dir_.path() / "home").string() +
                          "' SOURCE_DATE_EPOCH=1700000000 " TRAINPKG_PATH " " + args;
    return trainpkg::testing::Sh(command);
  }

  ScratchDir dir_;
};

TEST_F(BundleCliTest, BundlesIntoTheStoreAndALayout) {
  const std::string layout = (dir_.path() / "out").string();
  Result first = Trainpkg(
      std::string("build -q --bundle-libs ") + DIGITS_SAMPLE +
      " --env OMP_NUM_THREADS=1 --workdir /work -t digits:bundle --output oci:" + layout + ":v1");
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_THAT(first.out, ::testing::StartsWith("sha256:"));
  // With --output the layers are gzip; stored only, they stay uncompressed
  // unless --compression says otherwise.
  Result second =
      Trainpkg(std::string("build -q --bundle-libs ") + DIGITS_SAMPLE +
               " --env OMP_NUM_THREADS=1 --workdir /work -t digits:bundle --compression gzip");
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_EQ(first.out, second.out);  // reproducible: same binary, same libraries
  Result stored = Trainpkg(std::string("build -q --bundle-libs ") + DIGITS_SAMPLE +
                           " --env OMP_NUM_THREADS=1 --workdir /work -t digits:bundle");
  ASSERT_EQ(stored.code, 0) << stored.out;
  EXPECT_NE(stored.out, first.out);
  Result images = Trainpkg("images");
  ASSERT_EQ(images.code, 0) << images.out;
  EXPECT_THAT(images.out, HasSubstr("digits"));
  EXPECT_THAT(images.out, HasSubstr("bundle"));
  EXPECT_TRUE(fs::exists(fs::path(layout) / "index.json"));
}

TEST_F(BundleCliTest, RefusesFlagsOfTheOtherForm) {
  fs::create_directories(dir_.path() / "ctx");
  Result with_context =
      Trainpkg(std::string("build --bundle-libs ") + DIGITS_SAMPLE + " " + dir_.path().string());
  EXPECT_EQ(with_context.code, 2) << with_context.out;
  EXPECT_THAT(with_context.out, HasSubstr("--bundle-libs builds without a Dockerfile"));
  Result env_without_bundle = Trainpkg("build --env A=1 " + (dir_.path() / "ctx").string());
  EXPECT_EQ(env_without_bundle.code, 2) << env_without_bundle.out;
  EXPECT_THAT(env_without_bundle.out, HasSubstr("go with --bundle-libs"));
  Result nothing = Trainpkg("build");
  EXPECT_EQ(nothing.code, 2) << nothing.out;
  EXPECT_THAT(nothing.out, HasSubstr("CONTEXT is required (or --bundle-libs BINARY)"));
  Result missing = Trainpkg("build --bundle-libs " + (dir_.path() / "nope").string());
  EXPECT_EQ(missing.code, 1) << missing.out;
  EXPECT_THAT(missing.out, HasSubstr("bundling"));
}

}  // namespace
