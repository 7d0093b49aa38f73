// `trainpkg login|push|pull|logout` end to end: the built binary against a
// real docker-registry with htpasswd auth, DOCKER_CONFIG in a temp dir.
#include <filesystem>

#include "base/file_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/internal/subprocess.h"
#include "registry/oci/layout.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"

namespace trainpkg::cli {
namespace {

using registry::testing::PseudoRandomBytes;
using registry::testing::RegistryServer;
using ::testing::HasSubstr;
using ::testing::Not;

class CliRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start({.htpasswd_user = "tester", .htpasswd_password = "s3cret"}).ok());
    docker_config_ = server_.dir() / "docker";
    auto layout = oci::Layout::Create(server_.dir() / "src");
    ASSERT_TRUE(layout.ok());
    auto image = registry::testing::WriteTestImage(
        *layout, "v1", {PseudoRandomBytes(200 * 1024, 1), PseudoRandomBytes(3000, 2)});
    ASSERT_TRUE(image.ok());
    manifest_digest_ = image->manifest.digest.ToString();
  }

  // trainpkg `args` with DOCKER_CONFIG set and `input` on stdin.
  registry::internal::SubprocessResult Trainpkg(const std::vector<std::string>& args,
                                                const std::string& input = "") {
    std::vector<std::string> argv = {"/usr/bin/env", "DOCKER_CONFIG=" + docker_config_.string(),
                                     TRAINPKG_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = registry::internal::RunSubprocess(argv, input, absl::Seconds(30));
    EXPECT_TRUE(result.ok()) << result.status();
    return result.value_or(
        registry::internal::SubprocessResult{.exit_code = -1, .out = "", .err = ""});
  }

  std::string Config() const { return base::ReadFile(docker_config_ / "config.json").value_or(""); }

  RegistryServer server_;
  std::filesystem::path docker_config_;
  std::string manifest_digest_;
};

TEST_F(CliRegistryTest, LoginPushPullLogout) {
  std::string host = server_.host();
  auto wrong = Trainpkg({"login", host, "-u", "tester", "--password-stdin"}, "nope\n");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_THAT(wrong.err, HasSubstr("authentication required"));
  EXPECT_THAT(wrong.err, Not(HasSubstr("nope")));
  EXPECT_THAT(Config(), Not(HasSubstr(host)));

  auto login = Trainpkg({"login", host, "-u", "tester", "--password-stdin"}, "s3cret\n");
  ASSERT_EQ(login.exit_code, 0) << login.err;
  EXPECT_EQ(login.out, "Login Succeeded\n");
  EXPECT_THAT(Config(), HasSubstr(host));

  std::string src = "oci:" + (server_.dir() / "src").string() + ":v1";
  std::string ref = host + "/team/app:v1";
  auto push = Trainpkg({"push", src, ref, "--format", "json"});
  ASSERT_EQ(push.exit_code, 0) << push.err;
  nlohmann::json summary = nlohmann::json::parse(push.out);
  EXPECT_EQ(summary["digest"], manifest_digest_);
  EXPECT_EQ(summary["reference"], ref);
  ASSERT_EQ(summary["blobs"].size(), 3u);
  for (const auto& blob : summary["blobs"]) EXPECT_EQ(blob["action"], "pushed");
  EXPECT_THAT(push.err, HasSubstr(": Pushed "));

  auto again = Trainpkg({"push", src, ref});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr(": Layer already exists\n"));
  EXPECT_THAT(again.out, HasSubstr(fmt::format("v1: digest: {} size: ", manifest_digest_)));
  EXPECT_THAT(again.out, Not(HasSubstr("\x1b["))) << "not a terminal: plain lines";

  std::string dst = (server_.dir() / "dst").string();
  auto pull = Trainpkg({"pull", ref, "--output", "oci:" + dst, "--format", "json"});
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  EXPECT_EQ(nlohmann::json::parse(pull.out)["digest"], manifest_digest_);
  auto pulled = oci::Layout::Open(dst);
  ASSERT_TRUE(pulled.ok());
  auto image = pulled->ReadImage("v1");
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_TRUE(image->missing_blobs.empty());

  auto logout = Trainpkg({"logout", host});
  ASSERT_EQ(logout.exit_code, 0) << logout.err;
  EXPECT_THAT(Config(), Not(HasSubstr(host)));
  auto anonymous = Trainpkg({"push", src, ref});
  EXPECT_EQ(anonymous.exit_code, 1);
  EXPECT_THAT(anonymous.err, HasSubstr("trainpkg: error: "));
  EXPECT_THAT(anonymous.err, HasSubstr("HTTP 401: unauthorized: authentication required"));
}

TEST_F(CliRegistryTest, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(Trainpkg({"push", "dir-without-prefix", server_.host() + "/a:b"}).exit_code, 2);
  EXPECT_EQ(Trainpkg({"push", "oci:/nonexistent", "Bad/Ref"}).exit_code, 2);
  auto platform =
      Trainpkg({"pull", server_.host() + "/a:b", "--output", "oci:/tmp/x", "--platform", "linux/"});
  EXPECT_EQ(platform.exit_code, 2);
  auto no_password = Trainpkg({"login", server_.host(), "-u", "tester"});
  EXPECT_EQ(no_password.exit_code, 2);
  EXPECT_THAT(no_password.err, HasSubstr("--password-stdin"));
}

}  // namespace
}  // namespace trainpkg::cli
