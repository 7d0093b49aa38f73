// Bundle layout (which file lands where, in which layer) and the image it
// makes, on a fake root of minimal ELF files; the real binary under runc is
// bundle_interop_test.cc.
#include "packager/bundle/bundle_image.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/bundle/bundle_layers.h"
#include "packager/bundle/etc_files.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/packager/bundle/fake_elf.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::bundle {
namespace {

namespace fs = std::filesystem;
using builder::testing::ScratchDir;
using ::testing::ElementsAre;
using testing::FakeElf;
using ::testing::HasSubstr;
using testing::MakeMergedUsrRoot;
using testing::WriteFakeElf;

// "symlink /a -> b" or "file /a <- src" for each entry of a layer.
std::vector<std::string> Describe(const BundleLayer& layer) {
  std::vector<std::string> out;
  for (const LayerEntry& e : layer.source.entries) {
    out.push_back(e.kind == LayerEntry::Kind::kSymlink
                      ? "symlink " + e.destination + " -> " + e.source.string()
                      : "file " + e.destination + " <- " + e.source.string());
  }
  return out;
}

class BundleImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "root";
    MakeMergedUsrRoot(root_);
    WriteFakeElf(root_ / "usr/lib/x86_64-linux-gnu/libc.so.6", {.soname = "libc.so.6"});
    WriteFakeElf(root_ / "usr/lib/x86_64-linux-gnu/libconf/libconf.so", {});
    WriteFakeElf(root_ / "app/lib/libfoo.so.1.2.3", {.needed = {"libc.so.6"}});
    fs::create_symlink("libfoo.so.1.2.3", root_ / "app/lib/libfoo.so.1");
    WriteFakeElf(root_ / "app/bin/trainer", {.type = ET_EXEC,
                                             .interpreter = "/lib64/ld-linux-x86-64.so.2",
                                             .needed = {"libfoo.so.1", "libconf.so", "libc.so.6"},
                                             .runpath = "$ORIGIN/../lib"});
    fs::create_directories(root_ / "etc");
    std::ofstream(root_ / "etc/ld.so.conf") << "/usr/lib/x86_64-linux-gnu/libconf\n";
    auto config = DebianLoaderConfig(EM_X86_64);
    ASSERT_THAT(config, IsOk());
    config_ = *config;
    config_.root = root_;
  }

  ScratchDir dir_;
  fs::path root_;
  LoaderConfig config_;
};

TEST_F(BundleImageTest, LayersByVolatilityWithLinksKept) {
  auto closure = ResolveClosure("/app/bin/trainer", config_);
  ASSERT_THAT(closure, IsOk());
  ASSERT_THAT(WriteEtcFiles(dir_.path() / "etc", ""), IsOk());
  auto layers = PlanBundleLayers(*closure, config_, dir_.path() / "etc");
  ASSERT_THAT(layers, IsOk());
  ASSERT_EQ(layers->size(), 4u);
  EXPECT_EQ((*layers)[0].name, "etc");
  EXPECT_EQ((*layers)[1].name, "system");
  EXPECT_THAT(
      Describe((*layers)[1]),
      ElementsAre("symlink /lib -> usr/lib", "symlink /lib64 -> usr/lib64",
                  "file /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 <- "
                  "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                  "file /usr/lib/x86_64-linux-gnu/libc.so.6 <- usr/lib/x86_64-linux-gnu/libc.so.6",
                  // libconf.so came from ld.so.conf: linked from a default dir.
                  "symlink /usr/lib/x86_64-linux-gnu/libconf.so -> "
                  "/usr/lib/x86_64-linux-gnu/libconf/libconf.so",
                  "file /usr/lib/x86_64-linux-gnu/libconf/libconf.so <- "
                  "usr/lib/x86_64-linux-gnu/libconf/libconf.so",
                  "symlink /usr/lib64/ld-linux-x86-64.so.2 -> "
                  "../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
  EXPECT_EQ((*layers)[1].files, 3);
  EXPECT_EQ((*layers)[2].name, "project");
  EXPECT_THAT(Describe((*layers)[2]),
              ElementsAre("symlink /usr/lib/libfoo.so.1 -> libfoo.so.1.2.3",
                          "file /usr/lib/libfoo.so.1.2.3 <- app/lib/libfoo.so.1.2.3"));
  EXPECT_EQ((*layers)[3].name, "binary");
  EXPECT_THAT(Describe((*layers)[3]),
              ElementsAre("file /usr/local/bin/trainer <- app/bin/trainer"));
}

TEST_F(BundleImageTest, SameInputsSameDigestsAndConfig) {
  auto store = oci::Layout::Create(dir_.path() / "store");
  ASSERT_THAT(store, IsOk());
  BundleRequest request;
  request.binary = root_ / "app/bin/trainer";
  request.loader = config_;
  request.env = {"A=1", "PATH=/usr/local/bin", "A=2"};
  request.workdir = "/work";
  request.user = "65534";
  request.cmd = {"--help"};
  request.source_date_epoch = 1700000000;
  // The loader's root is the fake tree: the binary is named in its namespace.
  request.binary = "/app/bin/trainer";
  auto first = BuildBundle(request, *store);
  ASSERT_THAT(first, IsOk());
  auto second = BuildBundle(request, *store);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first->manifest_descriptor.digest, second->manifest_descriptor.digest);
  const oci::ImageConfig& config = first->config;
  EXPECT_THAT(config.config.entrypoint, ElementsAre("/usr/local/bin/trainer"));
  EXPECT_THAT(config.config.cmd, ElementsAre("--help"));
  EXPECT_THAT(config.config.env, ElementsAre("PATH=/usr/local/bin", "A=2"));
  EXPECT_EQ(config.config.working_dir, "/work");
  EXPECT_EQ(config.config.user, "65534");
  EXPECT_EQ(config.architecture, "amd64");
  EXPECT_EQ(config.created, "2023-11-14T22:13:20Z");
  ASSERT_EQ(first->manifest.layers.size(), 4u);
  ASSERT_EQ(config.history.size(), 4u);
  EXPECT_EQ(config.history[2].created_by, "trainpkg build --bundle-libs: project (1 files)");
  for (const oci::Descriptor& layer : first->manifest.layers) {
    EXPECT_TRUE(store->HasBlob(layer.digest)) << layer.digest.ToString();
  }

  request.env = {"NOEQUALS"};
  auto bad = BuildBundle(request, *store);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("bundling /app/bin/trainer: env \"NOEQUALS\": expected KEY=VALUE"));
}

TEST_F(BundleImageTest, MissingLibraryNamesTheSearch) {
  WriteFakeElf(root_ / "app/bin/broken", {.type = ET_EXEC,
                                          .interpreter = "/lib64/ld-linux-x86-64.so.2",
                                          .needed = {"libnothere.so.7"}});
  auto store = oci::Layout::Create(dir_.path() / "store");
  ASSERT_THAT(store, IsOk());
  BundleRequest request;
  request.binary = "/app/bin/broken";
  request.loader = config_;
  auto built = BuildBundle(request, *store);
  EXPECT_EQ(built.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(built.status().message(),
              HasSubstr("libnothere.so.7 (needed by /app/bin/broken) not found in: "
                        "/usr/lib/x86_64-linux-gnu/libconf, /lib/x86_64-linux-gnu"));
}

}  // namespace
}  // namespace trainpkg::packager::bundle
