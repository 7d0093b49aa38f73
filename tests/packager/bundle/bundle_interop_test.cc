// The digits sample bundled with its real shared-library closure: umoci
// unpacks it (files, links, config), and runc runs it with no base image.
// runc is skipped, with the reason, when this sandbox cannot start
// containers (not root, no cgroups).
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "packager/builder/image_export.h"
#include "packager/bundle/bundle_image.h"
#include "registry/oci/layout.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/runc_bundle.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::bundle {
namespace {

namespace fs = std::filesystem;
using builder::testing::ScratchDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Result = trainpkg::testing::ShellResult;
using trainpkg::testing::Sh;

using trainpkg::testing::Slurp;

class BundleInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = oci::Layout::Create(dir_.path() / "store");
    ASSERT_THAT(store, IsOk());
    BundleRequest request;
    request.binary = DIGITS_SAMPLE;
    request.env = {"TRAINPKG_BUNDLED=1"};
    request.workdir = "/work";
    auto image = BuildBundle(request, *store);
    ASSERT_THAT(image, IsOk());
    image_ = *image;
    auto out = oci::Layout::Create(dir_.path() / "out");
    ASSERT_THAT(out, IsOk());
    ASSERT_THAT(builder::ExportImage(image_, *store, *out, "1", false), IsOk());
    layout_ = (dir_.path() / "out").string() + ":1";
  }

  ScratchDir dir_;
  builder::BuiltImage image_;
  std::string layout_;
};

TEST_F(BundleInteropTest, SkopeoAndUmociReadIt) {
  Result inspect = Sh("skopeo inspect oci:" + layout_);
  ASSERT_EQ(inspect.code, 0) << inspect.out;
  nlohmann::json json = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(json["Digest"], image_.manifest_descriptor.digest.ToString());
  EXPECT_EQ(json["Layers"].size(), image_.manifest.layers.size());

  const fs::path bundle = dir_.path() / "unpacked";
  Result r = Sh("umoci unpack --rootless --image " + layout_ + " " + bundle.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const fs::path rootfs = bundle / "rootfs";
  EXPECT_EQ(Slurp(rootfs / "usr/local/bin/digits_multiworker"), Slurp(DIGITS_SAMPLE));
  // The loader, reached through the links the host has (merged /usr).
  std::error_code ec;
  EXPECT_TRUE(fs::is_symlink(rootfs / "lib64", ec) ||
              fs::is_symlink(rootfs / "lib64/ld-linux-x86-64.so.2", ec));
  EXPECT_TRUE(fs::exists(rootfs / "lib64/ld-linux-x86-64.so.2", ec));  // resolves in the rootfs
  EXPECT_THAT(Slurp(rootfs / "etc/passwd"), HasSubstr("nobody:x:65534:65534"));
  EXPECT_EQ(fs::status(rootfs / "tmp").permissions() & fs::perms::sticky_bit,
            fs::perms::sticky_bit);
  nlohmann::json config = nlohmann::json::parse(Slurp(bundle / "config.json"));
  EXPECT_THAT(config["process"]["args"].get<std::vector<std::string>>(),
              ElementsAre("/usr/local/bin/digits_multiworker"));
  EXPECT_EQ(config["process"]["cwd"], "/work");
  EXPECT_THAT(config["process"]["env"].dump(), HasSubstr("TRAINPKG_BUNDLED=1"));
}

TEST_F(BundleInteropTest, RuncRunsItWithNoBaseImage) {
  if (::geteuid() != 0) GTEST_SKIP() << "runc needs root to start containers in this sandbox";
  const fs::path bundle = dir_.path() / "runc-bundle";
  Result r = Sh("umoci unpack --image " + layout_ + " " + bundle.string());
  ASSERT_EQ(r.code, 0) << r.out;
  Result run = trainpkg::testing::RunBundleWithRunc(
      bundle, "trainpkg-bundle-test-" + std::to_string(::getpid()),
      {"/usr/local/bin/digits_multiworker", "--help"});
  if (run.code != 0 && run.out.find("cgroup") != std::string::npos) {
    GTEST_SKIP() << "runc cannot start containers here: " << run.out;
  }
  // The sample prints its --help and exits 0; getting there needs every
  // shared library and the loader in the image.
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("Usage: digits_multiworker [OPTIONS]"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("error while loading shared libraries")));
}

}  // namespace
}  // namespace trainpkg::packager::bundle
