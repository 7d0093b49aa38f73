// `trainpkg push REF` end to end: the built binary pushing what the local
// image store ($TRAINPKG_HOME/images) holds to a real docker-registry, and
// the blob location cache turning a push to a second repository into mounts.
#include <filesystem>
#include <random>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/internal/subprocess.h"
#include "registry/oci/layout.h"
#include "registry/registry_client.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;
using testing::PseudoRandomBytes;
using testing::RegistryServer;

class CliPushTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start({}).ok());
    home_ = server_.dir() / "home";
    // What `trainpkg build -t <host>/team/app:v1 -t <host>/other/app` leaves:
    // the store's tags are normalised references.
    auto store = oci::Layout::Create(home_ / "images");
    ASSERT_TRUE(store.ok()) << store.status();
    auto image = testing::WriteTestImage(*store, server_.host() + "/team/app:v1",
                                         {PseudoRandomBytes(150 * 1024, 41)});
    ASSERT_TRUE(image.ok()) << image.status();
    ASSERT_TRUE(store->Tag(image->manifest, server_.host() + "/other/app:latest").ok());
    manifest_ = image->manifest;
  }

  internal::SubprocessResult Trainpkg(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/env", "TRAINPKG_HOME=" + home_.string(),
                                     "HOME=" + home_.string(),
                                     "DOCKER_CONFIG=" + (home_ / "docker").string(), TRAINPKG_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = internal::RunSubprocess(argv, "", absl::Seconds(30));
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(internal::SubprocessResult{.exit_code = -1, .out = "", .err = ""});
  }

  RegistryServer server_;
  std::filesystem::path home_;
  oci::Descriptor manifest_;
};

TEST_F(CliPushTest, PushesFromTheStoreAndMountsIntoASecondRepository) {
  std::string host = server_.host();
  auto first = Trainpkg({"push", host + "/team/app:v1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("v1: digest: " + manifest_.digest.ToString()));
  EXPECT_TRUE(std::filesystem::exists(home_ / "blob-locations.json"));

  auto second = Trainpkg({"push", host + "/other/app", "--format", "json"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  nlohmann::json summary = nlohmann::json::parse(second.out);
  EXPECT_EQ(summary["digest"], manifest_.digest.ToString());
  ASSERT_EQ(summary["blobs"].size(), 2u);
  for (const auto& blob : summary["blobs"]) {
    EXPECT_EQ(blob["action"], "mounted") << blob;
    EXPECT_EQ(blob["from"], "team/app") << blob;
  }

  RegistryClient client(RegistryClientOptions{});
  for (const char* name : {"/team/app:v1", "/other/app:latest"}) {
    auto stored = client.GetManifest(*ParseReference(host + name));
    ASSERT_TRUE(stored.ok()) << name << ": " << stored.status();
    EXPECT_EQ(stored->digest, manifest_.digest) << name;
  }
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
