// `trainpkg import` as a user runs it (issue #17 item 2): a handmade rootfs
// directory into the local store (then `trainpkg images`), a gzip tarball
// from standard input into an oci: layout read by skopeo, --push to a real
// docker-registry read back by skopeo, the same digest twice under
// SOURCE_DATE_EPOCH, and exit code 2 with the reason for bad flags.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/registry/registry_server.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = trainpkg::testing::ShellResult;

class CliImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "trainpkg-cli-import-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    rootfs_ = dir_ / "rootfs";
    fs::create_directories(rootfs_ / "bin");
    fs::create_directories(rootfs_ / "etc");
    std::ofstream(rootfs_ / "etc/os-release") << "ID=handmade\n";
    std::ofstream(rootfs_ / "bin/hello") << "#!/bin/sh\necho hello\n";
    fs::permissions(rootfs_ / "bin/hello", fs::perms::owner_exec, fs::perm_options::add);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result Trainpkg(const std::string& args, const std::string& home = "home") {
    return trainpkg::testing::Sh("TRAINPKG_HOME='" + (dir_ / home).string() +
                                 "' " TRAINPKG_PATH " " + args);
  }

  fs::path dir_;
  fs::path rootfs_;
};

TEST_F(CliImportTest, DirectoryIntoTheStoreWithChanges) {
  Result imported =
      Trainpkg("import " + rootfs_.string() +
               " -t handmade:v1 --change 'ENV LANG=C.UTF-8' -c 'CMD [\"/bin/hello\"]'");
  ASSERT_EQ(imported.code, 0) << imported.out;
  EXPECT_THAT(imported.out, HasSubstr("[1/3] IMPORT " + rootfs_.string() + "\n"));
  EXPECT_THAT(imported.out, HasSubstr("[1/3] IMPORT " + rootfs_.string() + " ("));
  EXPECT_THAT(imported.out, HasSubstr("[2/3] ENV LANG=C.UTF-8\n"));
  EXPECT_THAT(imported.out, HasSubstr("[3/3] CMD [\"/bin/hello\"]\n"));
  EXPECT_THAT(imported.out, HasSubstr("tagged docker.io/library/handmade:v1"));

  Result images = Trainpkg("images");
  ASSERT_EQ(images.code, 0) << images.out;
  EXPECT_THAT(images.out, HasSubstr("handmade"));
}

TEST_F(CliImportTest, GzipTarballFromStdinIntoALayoutThatSkopeoReads) {
  Result tar = trainpkg::testing::Sh("tar -C " + rootfs_.string() + " -czf " +
                                     (dir_ / "rootfs.tgz").string() + " .");
  ASSERT_EQ(tar.code, 0) << tar.out;
  const std::string layout = "oci:" + (dir_ / "layout").string() + ":v1";
  Result imported =
      Trainpkg("import - --output " + layout + " --platform linux/arm64 -c 'USER 1000' < " +
               (dir_ / "rootfs.tgz").string());
  ASSERT_EQ(imported.code, 0) << imported.out;
  EXPECT_THAT(imported.out, HasSubstr("wrote " + layout));

  Result inspect = trainpkg::testing::Sh("skopeo inspect --config " + layout);
  ASSERT_EQ(inspect.code, 0) << inspect.out;
  nlohmann::json config = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(config["architecture"], "arm64");
  EXPECT_EQ(config["config"]["User"], "1000");
  EXPECT_EQ(config["rootfs"]["diff_ids"].size(), 1u);
  EXPECT_TRUE(fs::is_empty(dir_ / "home/build-cache/tmp")) << "stdin's spool is removed";
}

TEST_F(CliImportTest, SameInputAndEpochGiveTheSameDigestAndPushLandsIt) {
  trainpkg::registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  const std::string ref = server.host() + "/base/handmade:v1";
  auto import = [&](const std::string& home, const std::string& flags) {
    return trainpkg::testing::Sh("TRAINPKG_HOME='" + (dir_ / home).string() +
                                 "' SOURCE_DATE_EPOCH=1700000000 " TRAINPKG_PATH " import -q " +
                                 rootfs_.string() + " -t " + ref + flags);
  };
  Result first = import("home", " --push");
  ASSERT_EQ(first.code, 0) << first.out;
  Result second = import("home2", "");
  ASSERT_EQ(second.code, 0) << second.out;
  const std::string digest = second.out.substr(0, second.out.find('\n'));
  EXPECT_THAT(first.out, HasSubstr(digest + "\n")) << "another home, the same digest";

  Result inspect = trainpkg::testing::Sh("skopeo inspect --tls-verify=false docker://" + ref);
  ASSERT_EQ(inspect.code, 0) << inspect.out;
  nlohmann::json json = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(json["Created"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(json["Layers"].size(), 1u);
}

TEST_F(CliImportTest, BadFlagsExitTwoWithTheReason) {
  Result nowhere = Trainpkg("import " + rootfs_.string());
  EXPECT_EQ(nowhere.code, 2);
  EXPECT_THAT(nowhere.out, HasSubstr("nothing to write the image to: give -t"));
  Result push =
      Trainpkg("import " + rootfs_.string() + " --output oci:" + (dir_ / "o").string() + " --push");
  EXPECT_EQ(push.code, 2);
  EXPECT_THAT(push.out, HasSubstr("--push pushes the -t tags"));
  Result change = Trainpkg("import " + rootfs_.string() + " -t x:1 --change 'RUN rm -rf /'");
  EXPECT_EQ(change.code, 2);
  EXPECT_THAT(change.out, HasSubstr("--change \"RUN rm -rf /\": RUN cannot be a change"));
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  Result missing = Trainpkg("import " + (dir_ / "nope").string() + " -t x:1");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.out, HasSubstr("importing " + (dir_ / "nope").string()));
  EXPECT_THAT(missing.out, Not(HasSubstr("tagged")));
}

}  // namespace
