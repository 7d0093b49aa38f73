// dockerfiles/ built by trainpkg's builder, each on the one before: the
// digits sample's closure (--bundle-libs) -> runtime-cpu -> the sample
// images, and runtime-cuda where /usr/local/cuda exists. runc then runs the
// digits image (root only).
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/builder.h"
#include "packager/builder/image_export.h"
#include "packager/bundle/bundle_image.h"
#include "registry/oci/layout.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/runc_bundle.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ScratchDir;

const fs::path kDockerfiles = fs::path(TRAINPKG_SOURCE_DIR) / "dockerfiles";

std::string Shell(const std::string& command, int* code) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  int status = ::pclose(pipe);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

class DockerfilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = oci::Layout::Create(dir_.path() / "home/images");
    ASSERT_THAT(store, IsOk());
    store_ = *store;
    bundle::BundleRequest closure;
    closure.binary = DIGITS_SAMPLE;
    auto image = bundle::BuildBundle(closure, *store_);
    ASSERT_THAT(image, IsOk());
    Export(*image, "closure");
    ASSERT_NO_FATAL_FAILURE(BuildDockerfile("runtime-cpu.Dockerfile", kDockerfiles,
                                            {{"CLOSURE", Ref("closure")}}, "runtime-cpu"));
  }

  std::string Ref(const std::string& name) {
    return "oci:" + (dir_.path() / "layouts" / name).string() + ":1";
  }

  void Export(const BuiltImage& image, const std::string& name) {
    auto out = oci::Layout::Create(dir_.path() / "layouts" / name);
    ASSERT_THAT(out, IsOk());
    ASSERT_THAT(ExportImage(image, *store_, *out, "1", false), IsOk());
  }

  void BuildDockerfile(const std::string& dockerfile, const fs::path& context,
                       std::map<std::string, std::string> args, const std::string& name) {
    Builder builder(BuilderOptions{*store_, dir_.path() / "home/build-cache", nullptr, {}, {}, {}});
    BuildRequest request;
    request.context_dir = context;
    request.dockerfile = kDockerfiles / dockerfile;
    request.build_args = std::move(args);
    auto image = builder.Build(request);
    ASSERT_THAT(image, IsOk()) << dockerfile;
    EXPECT_THAT(image->warnings, ::testing::IsEmpty()) << dockerfile;
    images_[name] = *image;
    Export(*image, name);
  }

  ScratchDir dir_;
  std::optional<oci::Layout> store_;
  std::map<std::string, BuiltImage> images_;
};

TEST_F(DockerfilesTest, RuntimeCpuResetsTheClosureEntrypoint) {
  const BuiltImage& runtime = images_.at("runtime-cpu");
  EXPECT_THAT(runtime.config.config.entrypoint, ::testing::IsEmpty());
  EXPECT_EQ(runtime.config.config.working_dir, "/trainer");
  EXPECT_THAT(runtime.config.config.env, ::testing::Contains("OPENBLAS_NUM_THREADS=1"));
  // The closure's (etc, system libraries, binary: this tree links only
  // Debian libraries dynamically), nothing added.
  EXPECT_EQ(runtime.manifest.layers.size(), 3u);
}

TEST_F(DockerfilesTest, SampleImagesOnTheRuntime) {
  ASSERT_NO_FATAL_FAILURE(BuildDockerfile("multiworker_hello.Dockerfile",
                                          fs::path(HELLO_SAMPLE).parent_path(),
                                          {{"RUNTIME", Ref("runtime-cpu")}}, "hello"));
  EXPECT_THAT(images_.at("hello").config.config.entrypoint,
              ElementsAre("/usr/local/bin/multiworker_hello"));
  ASSERT_NO_FATAL_FAILURE(BuildDockerfile("digits_multiworker.Dockerfile",
                                          fs::path(DIGITS_SAMPLE).parent_path(),
                                          {{"RUNTIME", Ref("runtime-cpu")}}, "digits"));
  const BuiltImage& digits = images_.at("digits");
  EXPECT_THAT(digits.config.config.entrypoint, ElementsAre("/usr/local/bin/digits_multiworker"));
  EXPECT_EQ(digits.manifest.layers.size(), 4u);

  if (::geteuid() != 0) GTEST_SKIP() << "runc needs root to start containers in this sandbox";
  const fs::path bundle = dir_.path() / "runc-bundle";
  int code = -1;
  std::string out = Shell(
      "umoci unpack --image " + (dir_.path() / "layouts/digits").string() + ":1 " + bundle.string(),
      &code);
  ASSERT_EQ(code, 0) << out;
  out = trainpkg::testing::RunBundleWithRunc(
            bundle, "trainpkg-dockerfiles-test-" + std::to_string(::getpid()),
            {"/usr/local/bin/digits_multiworker", "--help"})
            .out;
  if (out.find("cgroup") != std::string::npos && out.find("Usage:") == std::string::npos) {
    GTEST_SKIP() << "runc cannot start containers here: " << out;
  }
  EXPECT_THAT(out, HasSubstr("Usage: digits_multiworker [OPTIONS]"));
}

TEST_F(DockerfilesTest, RuntimeCudaCopiesTheCudaLibraries) {
  const fs::path cuda = "/usr/local/cuda/lib64";
  std::error_code ec;
  if (!fs::is_directory(cuda, ec)) GTEST_SKIP() << cuda << " does not exist (no CUDA toolkit)";
  ASSERT_NO_FATAL_FAILURE(
      BuildDockerfile("runtime-cuda.Dockerfile", cuda, {{"RUNTIME", Ref("runtime-cpu")}}, "cuda"));
  const BuiltImage& image = images_.at("cuda");
  EXPECT_EQ(image.manifest.layers.size(), 4u);
  EXPECT_THAT(image.config.config.env,
              ::testing::Contains("LD_LIBRARY_PATH=/usr/local/cuda/lib64"));
}

}  // namespace
}  // namespace trainpkg::packager::builder
