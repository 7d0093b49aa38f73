// Independent readers of what `Builder` + `ExportImage` write: skopeo
// inspects the layout, umoci (rootless) unpacks the files and config, and
// runc runs the entrypoint of a busybox-static image built FROM scratch.
// A missing tool fails the test saying so; runc is skipped, with the reason,
// when this sandbox cannot start containers (not root).
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "packager/builder/builder.h"
#include "packager/builder/image_export.h"
#include "registry/oci/layout.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/runc_bundle.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ScratchDir;
using testing::Sh;
using Result = testing::ShellResult;
using testing::WriteFile;

using trainpkg::testing::Slurp;

// Builds `ctx` with a store and cache under `dir`/home and exports the image
// to the layout `dir`/out as tag "1".
void BuildAndExport(const fs::path& dir, const fs::path& ctx, BuiltImage* image) {
  auto store = oci::Layout::Create(dir / "home/images");
  ASSERT_THAT(store, IsOk());
  Builder builder(BuilderOptions{*store, dir / "home/build-cache", nullptr, {}, {}, {}});
  BuildRequest request;
  request.context_dir = ctx;
  auto built = builder.Build(request);
  ASSERT_THAT(built, IsOk());
  *image = *built;
  auto out = oci::Layout::Create(dir / "out");
  ASSERT_THAT(out, IsOk());
  ASSERT_THAT(ExportImage(*image, *store, *out, "1", false), IsOk());
}

class BuilderInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists("/bin/busybox"))
        << "busybox-static is missing (scripts/install-deps.sh)";
    ctx_ = dir_.path() / "ctx";
    fs::create_directories(ctx_ / "bin");
    fs::copy_file("/bin/busybox", ctx_ / "bin/busybox");
    WriteFile(ctx_ / "app/msg.txt", "hello-from-trainpkg\n");
    WriteFile(ctx_ / "Dockerfile",
              "FROM scratch\n"
              "COPY bin/busybox /bin/busybox\n"
              "WORKDIR /app\n"
              "COPY app/ /app/\n"
              "ENV GREETING=hi\n"
              "ENTRYPOINT [\"/bin/busybox\", \"cat\", \"/app/msg.txt\"]\n");
    ASSERT_NO_FATAL_FAILURE(BuildAndExport(dir_.path(), ctx_, &image_));
  }

  ScratchDir dir_;
  fs::path ctx_;
  BuiltImage image_;
};

TEST_F(BuilderInteropTest, SkopeoInspectAgrees) {
  Result r = Sh("skopeo inspect oci:" + (dir_.path() / "out").string() + ":1");
  ASSERT_EQ(r.code, 0) << r.out;
  nlohmann::json json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["Digest"], image_.manifest_descriptor.digest.ToString());
  ASSERT_EQ(json["Layers"].size(), 2u);
  EXPECT_EQ(json["Layers"][0], image_.manifest.layers[0].digest.ToString());
  EXPECT_EQ(json["Architecture"], "amd64");
  EXPECT_EQ(json["Created"], "1970-01-01T00:00:00Z");
  Result raw = Sh("skopeo inspect --config oci:" + (dir_.path() / "out").string() + ":1");
  ASSERT_EQ(raw.code, 0) << raw.out;
  EXPECT_EQ(nlohmann::json::parse(raw.out)["config"]["WorkingDir"], "/app");
}

TEST_F(BuilderInteropTest, UmociUnpackReproducesFilesAndConfig) {
  const fs::path bundle = dir_.path() / "bundle";
  Result r = Sh("umoci unpack --rootless --image " + (dir_.path() / "out").string() + ":1 " +
                bundle.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(Slurp(bundle / "rootfs/app/msg.txt"), "hello-from-trainpkg\n");
  EXPECT_EQ(Slurp(bundle / "rootfs/bin/busybox"), Slurp("/bin/busybox"));
  nlohmann::json config = nlohmann::json::parse(Slurp(bundle / "config.json"));
  EXPECT_EQ(config["process"]["cwd"], "/app");
  EXPECT_THAT(config["process"]["args"].get<std::vector<std::string>>(),
              ElementsAre("/bin/busybox", "cat", "/app/msg.txt"));
  EXPECT_THAT(config["process"]["env"].dump(), HasSubstr("GREETING=hi"));
}

TEST_F(BuilderInteropTest, RuncRunsTheEntrypoint) {
  if (::geteuid() != 0) GTEST_SKIP() << "runc needs root to start containers in this sandbox";
  const fs::path bundle = dir_.path() / "runc-bundle";
  Result r = Sh("umoci unpack --image " + (dir_.path() / "out").string() + ":1 " + bundle.string());
  ASSERT_EQ(r.code, 0) << r.out;
  Result run = trainpkg::testing::RunBundleWithRunc(
      bundle, "trainpkg-build-test-" + std::to_string(::getpid()));
  if (run.code != 0 && run.out.find("cgroup") != std::string::npos) {
    GTEST_SKIP() << "runc cannot start containers here: " << run.out;
  }
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(run.out, "hello-from-trainpkg\n");
}

// ADD of local archives, made by GNU tar, read back by umoci: the members land
// under the destination with their modes and links; a gzip file that is not
// a tar is copied as it is, as Docker does.
TEST(BuilderAddArchiveInteropTest, UmociSeesTheUnpackedMembers) {
  ScratchDir dir;
  const fs::path ctx = dir.path() / "ctx";
  WriteFile(dir.path() / "src/bin/tool", "#!/bin/sh\necho tool\n");
  WriteFile(dir.path() / "src/share/doc.txt", "doc\n");
  Result made = Sh("cd " + (dir.path() / "src").string() +
                   " && chmod 0750 bin/tool && ln bin/tool bin/tool-again && ln -s doc.txt "
                   "share/README && mkdir -p " + ctx.string() +
                   " && tar --sort=name --owner=0 --group=0 -czf " + (ctx / "pkg.tgz").string() +
                   " . && printf 'plain text\\n' | gzip -n > " + (ctx / "notes.gz").string());
  ASSERT_EQ(made.code, 0) << made.out;
  WriteFile(ctx / "Dockerfile",
            "FROM scratch\n"
            "ADD pkg.tgz /opt/pkg\n"
            "ADD notes.gz /opt/\n");
  BuiltImage image;
  ASSERT_NO_FATAL_FAILURE(BuildAndExport(dir.path(), ctx, &image));

  const fs::path bundle = dir.path() / "bundle";
  Result r = Sh("umoci unpack --rootless --image " + (dir.path() / "out").string() + ":1 " +
                bundle.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const fs::path pkg = bundle / "rootfs/opt/pkg";
  EXPECT_EQ(Slurp(pkg / "bin/tool"), "#!/bin/sh\necho tool\n");
  EXPECT_EQ(fs::status(pkg / "bin/tool").permissions() & fs::perms::mask,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  EXPECT_TRUE(fs::equivalent(pkg / "bin/tool", pkg / "bin/tool-again")) << "still a hardlink";
  EXPECT_EQ(fs::read_symlink(pkg / "share/README"), "doc.txt");
  EXPECT_EQ(Slurp(pkg / "share/doc.txt"), "doc\n");
  EXPECT_FALSE(fs::exists(pkg / "pkg.tgz"));
  EXPECT_EQ(Slurp(bundle / "rootfs/opt/notes.gz"), Slurp(ctx / "notes.gz"))
      << "a gzip that is not a tar is copied as a file";
}

}  // namespace
}  // namespace trainpkg::packager::builder
