// `trainpkg login|push|pull|logout` end to end: the built binary against a
// real docker-registry with htpasswd auth, DOCKER_CONFIG in a temp dir.
#include <filesystem>

#include "base/file_util.h"
#include "base/subprocess.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/oci/host_platform.h"
#include "registry/oci/layout.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::cli {
namespace {

using registry::testing::PseudoRandomBytes;
using registry::testing::RegistryServer;
using ::testing::HasSubstr;
using ::testing::Not;

class CliRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.Start({.htpasswd_user = "tester", .htpasswd_password = "s3cret"}), IsOk());
    docker_config_ = server_.dir() / "docker";
    auto layout = oci::Layout::Create(server_.dir() / "src");
    ASSERT_THAT(layout, IsOk());
    auto image = registry::testing::WriteTestImage(
        *layout, "v1", {PseudoRandomBytes(200 * 1024, 1), PseudoRandomBytes(3000, 2)});
    ASSERT_THAT(image, IsOk());
    manifest_digest_ = image->manifest.digest.ToString();
  }

  // trainpkg `args` with DOCKER_CONFIG set and `input` on stdin.
  base::SubprocessResult Trainpkg(const std::vector<std::string>& args,
                                  const std::string& input = "",
                                  const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv = {"/usr/bin/env", "DOCKER_CONFIG=" + docker_config_.string()};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(TRAINPKG_PATH);
    argv.insert(argv.end(), args.begin(), args.end());
    auto result = base::RunSubprocess(argv, input, absl::Seconds(30));
    EXPECT_THAT(result, IsOk());
    return result.value_or(base::SubprocessResult{.exit_code = -1, .out = "", .err = ""});
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
  ASSERT_THAT(pulled, IsOk());
  auto image = pulled->ReadImage("v1");
  ASSERT_THAT(image, IsOk());
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

// Issue 18 item 8: login says when the password lands in plain text; a
// podman/skopeo login (auth.json) is used when docker has none; the config
// file's `registry:` is login's default.
TEST_F(CliRegistryTest, PlainTextWarningPodmansAuthJsonAndTheDefaultRegistry) {
  const std::string host = server_.host();
  const std::filesystem::path xdg = server_.dir() / "xdg";
  ASSERT_TRUE(
      base::WriteFileAtomic(xdg / "trainpkg" / "config.yaml", "registry: " + host + "\n").ok());
  auto login = Trainpkg({"login", "-u", "tester", "--password-stdin"}, "s3cret\n",
                        {"XDG_CONFIG_HOME=" + xdg.string()});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  EXPECT_THAT(login.err, HasSubstr("trainpkg: warning: the password is stored unencrypted "
                                   "(base64) in " +
                                   (docker_config_ / "config.json").string()));
  EXPECT_THAT(login.err, HasSubstr("credsStore"));
  EXPECT_THAT(Config(), HasSubstr(host));

  // The same login, moved to podman's file: docker's is empty now.
  const std::filesystem::path auth_json = server_.dir() / "auth.json";
  ASSERT_THAT(base::WriteFileAtomic(auth_json, Config()), IsOk());
  auto logout = Trainpkg({"logout"}, "", {"XDG_CONFIG_HOME=" + xdg.string()});
  ASSERT_EQ(logout.exit_code, 0) << logout.err;
  EXPECT_THAT(Config(), Not(HasSubstr(host)));
  const std::string src = "oci:" + (server_.dir() / "src").string() + ":v1";
  const std::string ref = host + "/team/app:v1";
  auto anonymous = Trainpkg({"push", src, ref});
  EXPECT_EQ(anonymous.exit_code, 1) << anonymous.err;
  auto push = Trainpkg({"push", src, ref}, "", {"REGISTRY_AUTH_FILE=" + auth_json.string()});
  EXPECT_EQ(push.exit_code, 0) << push.err;

  auto nowhere = Trainpkg({"login", "-u", "tester", "--password-stdin"}, "s3cret\n",
                          {"XDG_CONFIG_HOME=" + (server_.dir() / "none").string()});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_THAT(nowhere.err, HasSubstr("name a registry (host[:port]), or set `registry:` in "));
}

// Issue 18 item 8: pull's (and build's) default platform is the host's.
TEST_F(CliRegistryTest, DefaultPlatformIsTheHosts) {
  auto help = Trainpkg({"pull", "--help"});
  EXPECT_THAT(help.out, HasSubstr(oci::HostPlatform()));
  auto build_help = Trainpkg({"build", "--help"});
  EXPECT_THAT(build_help.out, HasSubstr(oci::HostPlatform()));
}

}  // namespace
}  // namespace trainpkg::cli
