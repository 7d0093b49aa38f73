// `trainpkg push REF` end to end: the built binary pushing what the local
// image store ($TRAINPKG_HOME/images) holds to a real docker-registry, and
// the blob location cache turning a push to a second repository into mounts.
#include <filesystem>
#include <fstream>
#include <random>

#include "base/subprocess.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/oci/image_manifest.h"
#include "registry/oci/layout.h"
#include "registry/oci/media_types.h"
#include "registry/registry_client.h"
#include "tests/registry/fault_proxy.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::PseudoRandomBytes;
using testing::RegistryServer;

class CliPushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.Start({}), IsOk());
    home_ = server_.dir() / "home";
    // What `trainpkg build -t <host>/team/app:v1 -t <host>/other/app` leaves:
    // the store's tags are normalised references.
    auto store = oci::Layout::Create(home_ / "images");
    ASSERT_THAT(store, IsOk());
    auto image = testing::WriteTestImage(*store, server_.host() + "/team/app:v1",
                                         {PseudoRandomBytes(150 * 1024, 41)});
    ASSERT_THAT(image, IsOk());
    ASSERT_THAT(store->Tag(image->manifest, server_.host() + "/other/app:latest"), IsOk());
    manifest_ = image->manifest;
  }

  base::SubprocessResult Trainpkg(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/env", "TRAINPKG_HOME=" + home_.string(),
                                     "HOME=" + home_.string(),
                                     "DOCKER_CONFIG=" + (home_ / "docker").string(), TRAINPKG_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = base::RunSubprocess(argv, "", absl::Seconds(30));
    EXPECT_THAT(result, IsOk());
    return result.value_or(base::SubprocessResult{.exit_code = -1, .out = "", .err = ""});
  }

  RegistryServer server_;
  std::filesystem::path home_;
  oci::Descriptor manifest_;
};

TEST_F(CliPushTest, PushesFromTheStoreAndMountsIntoASecondRepository) {
  std::string host = server_.host();
  // The store's layer is uncompressed (as `trainpkg build -t` keeps them):
  // the push compresses it, so the registry's manifest is a new one.
  auto first = Trainpkg({"push", host + "/team/app:v1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("compressing 0.2 MB (gzip)"));
  const std::string marker = "v1: digest: ";
  const size_t at = first.out.find(marker);
  ASSERT_NE(at, std::string::npos) << first.out;
  const std::string pushed = first.out.substr(at + marker.size(), 71);
  EXPECT_NE(pushed, manifest_.digest.ToString());
  EXPECT_TRUE(std::filesystem::exists(home_ / "blob-locations.json"));

  // The second push reuses the compressed blob: same digest, both blobs
  // mounted, nothing compressed again.
  auto second = Trainpkg({"push", host + "/other/app", "--format", "json"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.err, Not(HasSubstr("compressing")));
  nlohmann::json summary = nlohmann::json::parse(second.out);
  EXPECT_EQ(summary["digest"], pushed);
  ASSERT_EQ(summary["blobs"].size(), 2u);
  for (const auto& blob : summary["blobs"]) {
    EXPECT_EQ(blob["action"], "mounted") << blob;
    EXPECT_EQ(blob["from"], "team/app") << blob;
  }

  RegistryClient client(RegistryClientOptions{});
  for (const char* name : {"/team/app:v1", "/other/app:latest"}) {
    auto stored = client.GetManifest(*ParseReference(host + name));
    ASSERT_THAT(stored, IsOk()) << name << ": " << stored.status();
    EXPECT_EQ(stored->digest.ToString(), pushed) << name;
    auto manifest = oci::ParseImageManifest(stored->bytes);
    ASSERT_THAT(manifest, IsOk());
    ASSERT_EQ(manifest->layers.size(), 1u);
    EXPECT_EQ(manifest->layers[0].media_type, oci::media_types::kOciLayerGzip) << name;
  }
}

TEST_F(CliPushTest, CompressionFlagsChooseHowStoredLayersAreCompressed) {
  std::string host = server_.host();
  auto zstd = Trainpkg(
      {"push", "--compression", "zstd", "--compression-level", "19", host + "/team/app:v1"});
  ASSERT_EQ(zstd.exit_code, 0) << zstd.err;
  EXPECT_THAT(zstd.out, HasSubstr("(zstd)"));
  RegistryClient client(RegistryClientOptions{});
  auto stored = client.GetManifest(*ParseReference(host + "/team/app:v1"));
  ASSERT_THAT(stored, IsOk());
  auto manifest = oci::ParseImageManifest(stored->bytes);
  ASSERT_THAT(manifest, IsOk());
  ASSERT_EQ(manifest->layers.size(), 1u);
  EXPECT_EQ(manifest->layers[0].media_type, oci::media_types::kOciLayerZstd);

  auto bad_level = Trainpkg({"push", "--compression-level", "13", host + "/team/app:v1"});
  EXPECT_EQ(bad_level.exit_code, 2);
  EXPECT_THAT(bad_level.err, HasSubstr("gzip compression level 13 is outside 1..12"));
}

// The whole path with the real binary: `build -t` stores uncompressed
// layers, `push` compresses them, and the registry ends up with exactly the
// image `build --output oci:` writes from the same context.
TEST_F(CliPushTest, PushedImageIsTheOneBuildOutputWrites) {
  const std::filesystem::path ctx = server_.dir() / "ctx";
  std::filesystem::create_directories(ctx / "trainer");
  {
    std::ofstream(ctx / "trainer/task.py") << "print('train')\n" << std::string(200'000, '#');
    std::ofstream(ctx / "Dockerfile") << "FROM scratch\nCOPY trainer /app/trainer/\n"
                                         "ENTRYPOINT [\"python3\", \"-m\", \"trainer.task\"]\n";
  }
  const std::string image = server_.host() + "/team/built:v1";
  auto stored = Trainpkg({"build", "-q", "-t", image, ctx.string()});
  ASSERT_EQ(stored.exit_code, 0) << stored.err;
  auto output = Trainpkg(
      {"build", "-q", "--output", "oci:" + (server_.dir() / "out").string(), ctx.string()});
  ASSERT_EQ(output.exit_code, 0) << output.err;
  EXPECT_NE(stored.out, output.out) << "stored uncompressed, written as gzip";

  auto pushed = Trainpkg({"push", "--format", "json", image});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  EXPECT_THAT(pushed.err, HasSubstr("compressing"));
  nlohmann::json summary = nlohmann::json::parse(pushed.out);
  EXPECT_EQ(summary["digest"].get<std::string>() + "\n", output.out);
}

// A layer uploads while it is compressed; when that stream breaks (here:
// its second PATCH is cut), the push still succeeds by uploading the
// finished blob the usual, resumable way.
TEST_F(CliPushTest, ABrokenStreamedUploadFallsBackToTheFinishedBlob) {
  testing::FaultProxy proxy;
  ASSERT_THAT(proxy.Start(server_.host()), IsOk());
  const std::filesystem::path ctx = server_.dir() / "ctx";
  std::filesystem::create_directories(ctx);
  {
    std::ofstream(ctx / "weights.bin", std::ios::binary) << PseudoRandomBytes(20 << 20, 5);
    std::ofstream(ctx / "Dockerfile") << "FROM scratch\nCOPY weights.bin /w\n";
  }
  auto output = Trainpkg(
      {"build", "-q", "--output", "oci:" + (server_.dir() / "out").string(), ctx.string()});
  ASSERT_EQ(output.exit_code, 0) << output.err;

  for (bool cut : {false, true}) {
    proxy.ClearRules();
    if (cut) {
      proxy.AddRule({.method = "PATCH",
                     .path_pattern = "/blobs/uploads/",
                     .occurrence = 2,
                     .kind = testing::FaultKind::kResetRequest,
                     .after_bytes = 1 << 20});
    }
    const std::string image = proxy.host() + (cut ? "/team/cut:v1" : "/team/whole:v1");
    auto stored = Trainpkg({"build", "-q", "-t", image, ctx.string()});
    ASSERT_EQ(stored.exit_code, 0) << stored.err;
    const int patches_before = proxy.Count("PATCH", "/blobs/uploads/");
    // A fresh compression cache each time, so that the layer streams, and
    // no blob locations, so that nothing is mounted from the first round.
    std::filesystem::remove_all(home_ / "build-cache" / "compressed");
    std::filesystem::remove(home_ / "blob-locations.json");
    auto pushed =
        Trainpkg({"push", "--format", "json", "--insecure-registry", proxy.host(), image});
    ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
    nlohmann::json summary = nlohmann::json::parse(pushed.out);
    EXPECT_EQ(summary["digest"].get<std::string>() + "\n", output.out) << cut;
    for (const auto& blob : summary["blobs"]) EXPECT_EQ(blob["action"], "pushed") << blob;
    EXPECT_GE(proxy.Count("PATCH", "/blobs/uploads/") - patches_before, 2)
        << "the 20 MB layer went out in chunks while it was compressed";
    EXPECT_EQ(proxy.fired(), cut ? 1 : 0);
  }
  EXPECT_EQ(proxy.Count("DELETE", "/blobs/uploads/"), 1) << "the broken stream was cancelled";
}

TEST_F(CliPushTest, ImagesNotInTheStoreAndBadArgumentsAreClearErrors) {
  auto missing = Trainpkg({"push", server_.host() + "/team/app:v2"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("is not in the local image store"));
  EXPECT_THAT(missing.err, HasSubstr("trainpkg build -t " + server_.host() + "/team/app:v2"));

  auto no_target = Trainpkg({"push", "oci:" + (home_ / "images").string()});
  EXPECT_EQ(no_target.exit_code, 2);
  EXPECT_THAT(no_target.err, HasSubstr("needs the target REF"));

  auto by_digest = Trainpkg({"push", server_.host() + "/team/app@" + manifest_.digest.ToString()});
  EXPECT_EQ(by_digest.exit_code, 2);
  EXPECT_THAT(by_digest.err, HasSubstr("holds tags, not digests"));
}

}  // namespace
}  // namespace trainpkg::registry
