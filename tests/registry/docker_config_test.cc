#include "registry/auth/docker_config.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/escaping.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/auth/credential_helper.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The protocol as docker-credential-helpers implement it: "get" reads the
// server URL on stdin; store/erase are recorded beside the script.
constexpr char kHelperScript[] = R"(#!/bin/sh
dir=$(dirname "$0")
input=$(cat)
case "$1" in
  get)
    case "$input" in
      gcr.io) echo '{"ServerURL":"gcr.io","Username":"_dcgcloud_token","Secret":"ya29.access"}' ;;
      tokens.example) echo '{"ServerURL":"tokens.example","Username":"<token>","Secret":"refresh-1"}' ;;
      https://index.docker.io/v1/) echo '{"ServerURL":"x","Username":"hubuser","Secret":"hubpw"}' ;;
      broken.example) echo 'not json' ;;
      *) echo 'credentials not found in native keychain'; exit 1 ;;
    esac ;;
  store) printf '%s' "$input" > "$dir/stored.json" ;;
  erase) printf '%s' "$input" > "$dir/erased.txt" ;;
  *) echo "unknown verb $1" >&2; exit 2 ;;
esac
)";

class DockerConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("trainpkg-docker-config-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "bin");
    WriteExecutable(root_ / "bin" / "docker-credential-fake", kHelperScript);
    WriteExecutable(root_ / "bin" / "docker-credential-failing",
                    "#!/bin/sh\necho 'keyring locked' >&2\nexit 3\n");
    env_.Set("DOCKER_CONFIG", (root_ / "docker").string());
    env_.Set("PATH", (root_ / "bin").string() + ":/usr/bin:/bin");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  static void WriteExecutable(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }

  void WriteConfig(const nlohmann::json& config) {
    ASSERT_THAT(base::WriteFileAtomic(ConfigPath(), config.dump()), IsOk());
  }
  std::filesystem::path ConfigPath() const { return root_ / "docker" / "config.json"; }
  nlohmann::json ReadConfig() const { return nlohmann::json::parse(*base::ReadFile(ConfigPath())); }

  std::filesystem::path root_;
  base::MapEnvironment env_;
};

TEST_F(DockerConfigTest, PathFromDockerConfigElseHome) {
  EXPECT_EQ(*DockerConfigPath(env_), ConfigPath());
  base::MapEnvironment home;
  home.Set("HOME", "/home/u");
  EXPECT_EQ(*DockerConfigPath(home), "/home/u/.docker/config.json");
  EXPECT_EQ(DockerConfigPath(base::MapEnvironment()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(DockerConfigTest, MissingFileIsAnonymous) {
  DockerKeychain keychain(env_);
  auto c = keychain.Resolve("gcr.io");
  ASSERT_THAT(c, IsOk());
  EXPECT_TRUE(c->anonymous());
}

TEST_F(DockerConfigTest, ReadsAuthsWithBase64AndTokens) {
  WriteConfig({{"auths",
                {{"localhost:5000", {{"auth", absl::Base64Escape("alice:pa:ss")}}},
                 {"https://index.docker.io/v1/", {{"auth", absl::Base64Escape("hub:pw")}}},
                 {"https://legacy.example/v1/", {{"username", "bob"}, {"password", "pw2"}}},
                 {"tok.example", {{"identitytoken", "refresh"}}},
                 {"reg.example", {{"registrytoken", "bearer"}}}}}});
  DockerKeychain keychain(env_);
  auto local = keychain.Resolve("localhost:5000");
  ASSERT_THAT(local, IsOk());
  EXPECT_EQ(local->username, "alice");
  EXPECT_EQ(local->password, "pa:ss");
  EXPECT_EQ(keychain.Resolve("docker.io")->username, "hub");
  EXPECT_EQ(keychain.Resolve("legacy.example")->username, "bob");
  EXPECT_EQ(keychain.Resolve("tok.example")->identity_token, "refresh");
  EXPECT_EQ(keychain.Resolve("reg.example")->registry_token, "bearer");
  EXPECT_TRUE(keychain.Resolve("other.example")->anonymous());
}

TEST_F(DockerConfigTest, BrokenFilesAreClearErrorsWithoutSecrets) {
  WriteConfig({{"auths", {{"r.example", {{"auth", "bm9jb2xvbg=="}}}}}});  // "nocolon"
  DockerKeychain keychain(env_);
  auto bad_auth = keychain.Resolve("r.example");
  ASSERT_FALSE(bad_auth.ok());
  EXPECT_THAT(std::string(bad_auth.status().message()), HasSubstr("auths[\"r.example\"].auth"));
  EXPECT_THAT(std::string(bad_auth.status().message()), Not(HasSubstr("nocolon")));
  ASSERT_THAT(base::WriteFileAtomic(ConfigPath(), "{not json"), IsOk());
  auto bad_json = keychain.Resolve("r.example");
  EXPECT_EQ(bad_json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_json.status().message()), HasSubstr("config.json"));
}

TEST_F(DockerConfigTest, CredHelpersWinOverCredsStoreAndAuths) {
  WriteConfig({{"credHelpers", {{"gcr.io", "fake"}, {"tokens.example", "fake"}}},
               {"auths", {{"gcr.io", {{"auth", absl::Base64Escape("file:pw")}}}}}});
  DockerKeychain keychain(env_);
  auto gcr = keychain.Resolve("gcr.io");
  ASSERT_THAT(gcr, IsOk());
  EXPECT_EQ(gcr->username, "_dcgcloud_token");
  EXPECT_EQ(gcr->password, "ya29.access");
  EXPECT_EQ(keychain.Resolve("tokens.example")->identity_token, "refresh-1");
}

TEST_F(DockerConfigTest, CredsStoreServesHubAndNotFoundIsAnonymous) {
  WriteConfig({{"credsStore", "fake"}});
  DockerKeychain keychain(env_);
  auto hub = keychain.Resolve("docker.io");
  ASSERT_THAT(hub, IsOk());
  EXPECT_EQ(hub->username, "hubuser");
  auto unknown = keychain.Resolve("nowhere.example");
  ASSERT_THAT(unknown, IsOk());
  EXPECT_TRUE(unknown->anonymous());
}

TEST_F(DockerConfigTest, HelperFailuresAreReported) {
  DockerKeychain keychain(env_);
  WriteConfig({{"credHelpers",
                {{"a.example", "missing"}, {"b.example", "failing"}, {"broken.example", "fake"}}}});
  auto missing = keychain.Resolve("a.example");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("docker-credential-missing is not on PATH"));
  auto failing = keychain.Resolve("b.example");
  EXPECT_EQ(failing.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(failing.status().message()), HasSubstr("status 3: keyring locked"));
  EXPECT_THAT(std::string(keychain.Resolve("broken.example").status().message()),
              HasSubstr("no JSON object"));
}

TEST_F(DockerConfigTest, LoginWritesAuthsPrivatelyAndKeepsOtherFields) {
  WriteConfig({{"HttpHeaders", {{"X-Meta", "1"}}},
               {"auths", {{"other.example", {{"auth", "b3RoZXI6cHc="}}}}}});
  ASSERT_THAT(SaveLogin(env_, "localhost:5000", {.username = "alice", .password = "s3cret"}), IsOk());
  nlohmann::json config = ReadConfig();
  EXPECT_EQ(config["HttpHeaders"]["X-Meta"], "1");
  EXPECT_EQ(config["auths"]["other.example"]["auth"], "b3RoZXI6cHc=");
  EXPECT_EQ(config["auths"]["localhost:5000"]["auth"], absl::Base64Escape("alice:s3cret"));
  struct stat st;
  ASSERT_EQ(::stat(ConfigPath().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  DockerKeychain keychain(env_);
  EXPECT_EQ(keychain.Resolve("localhost:5000")->password, "s3cret");

  ASSERT_THAT(RemoveLogin(env_, "localhost:5000"), IsOk());
  config = ReadConfig();
  EXPECT_FALSE(config["auths"].contains("localhost:5000"));
  EXPECT_TRUE(config["auths"].contains("other.example"));
  EXPECT_THAT(RemoveLogin(env_, "never.example"), IsOk());
}

TEST_F(DockerConfigTest, LoginCreatesTheFileAndHubUsesItsLegacyKey) {
  ASSERT_THAT(SaveLogin(env_, "docker.io", {.username = "u", .password = "p"}), IsOk());
  EXPECT_TRUE(ReadConfig()["auths"].contains("https://index.docker.io/v1/"));
  struct stat st;
  ASSERT_EQ(::stat(ConfigPath().parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(DockerConfigTest, LoginAndLogoutGoThroughTheConfiguredHelper) {
  WriteConfig({{"credsStore", "fake"}});
  ASSERT_THAT(SaveLogin(env_, "r.example", {.username = "carol", .password = "pw"}), IsOk());
  nlohmann::json stored = nlohmann::json::parse(*base::ReadFile(root_ / "bin" / "stored.json"));
  EXPECT_EQ(stored["ServerURL"], "r.example");
  EXPECT_EQ(stored["Username"], "carol");
  EXPECT_EQ(stored["Secret"], "pw");
  nlohmann::json config = ReadConfig();
  EXPECT_EQ(config["auths"]["r.example"], nlohmann::json::object());
  EXPECT_EQ(config["credsStore"], "fake");

  ASSERT_THAT(RemoveLogin(env_, "r.example"), IsOk());
  EXPECT_EQ(*base::ReadFile(root_ / "bin" / "erased.txt"), "r.example");
  EXPECT_FALSE(ReadConfig()["auths"].contains("r.example"));
}

TEST_F(DockerConfigTest, HelperStoresIdentityTokensUnderTheTokenUsername) {
  CredentialHelper helper(env_, "fake");
  ASSERT_THAT(helper.Store("t.example", {.identity_token = "refresh-2"}), IsOk());
  nlohmann::json stored = nlohmann::json::parse(*base::ReadFile(root_ / "bin" / "stored.json"));
  EXPECT_EQ(stored["Username"], "<token>");
  EXPECT_EQ(stored["Secret"], "refresh-2");
}

// Issue 18 item 8: podman's and skopeo's logins are used when docker has none.
class NeighbourAuthTest : public DockerConfigTest {
 protected:
  void WriteJson(const std::filesystem::path& path, const nlohmann::json& json) {
    std::filesystem::create_directories(path.parent_path());
    ASSERT_THAT(base::WriteFileAtomic(path, json.dump()), IsOk());
  }
  static nlohmann::json Auths(const std::string& registry, const std::string& user_pw) {
    return {{"auths", {{registry, {{"auth", absl::Base64Escape(user_pw)}}}}}};
  }
};

TEST_F(NeighbourAuthTest, AuthJsonIsReadAfterDockersConfig) {
  env_.Set("XDG_RUNTIME_DIR", (root_ / "run").string());
  env_.Set("HOME", (root_ / "home").string());
  WriteConfig(Auths("docker.example", "dockeruser:dpw"));
  WriteJson(root_ / "run" / "containers" / "auth.json", Auths("podman.example", "pod:ppw"));
  WriteJson(root_ / "home" / ".config" / "containers" / "auth.json",
            {{"auths",
              {{"skopeo.example", {{"auth", absl::Base64Escape("sko:spw")}}},
               {"docker.example", {{"auth", absl::Base64Escape("shadowed:x")}}},
               {"podman.example", {{"auth", absl::Base64Escape("shadowed:y")}}}}}});
  DockerKeychain keychain(env_);
  EXPECT_EQ(keychain.Resolve("docker.example")->username, "dockeruser");
  EXPECT_EQ(keychain.Resolve("podman.example")->username, "pod");
  EXPECT_EQ(keychain.Resolve("skopeo.example")->password, "spw");
  EXPECT_TRUE(keychain.Resolve("nobody.example")->anonymous());

  env_.Set("XDG_CONFIG_HOME", (root_ / "xdg").string());
  WriteJson(root_ / "xdg" / "containers" / "auth.json", Auths("skopeo.example", "xdg:xpw"));
  EXPECT_EQ(keychain.Resolve("skopeo.example")->username, "xdg");
}

TEST_F(NeighbourAuthTest, RegistryAuthFileReplacesTheDefaultLocations) {
  env_.Set("XDG_RUNTIME_DIR", (root_ / "run").string());
  WriteJson(root_ / "run" / "containers" / "auth.json", Auths("podman.example", "pod:ppw"));
  WriteJson(root_ / "mine.json", Auths("mine.example", "me:mpw"));
  env_.Set("REGISTRY_AUTH_FILE", (root_ / "mine.json").string());
  DockerKeychain keychain(env_);
  EXPECT_EQ(keychain.Resolve("mine.example")->password, "mpw");
  EXPECT_TRUE(keychain.Resolve("podman.example")->anonymous());

  // Without DOCKER_CONFIG and HOME, podman's file alone still works.
  base::MapEnvironment only_podman;
  only_podman.Set("REGISTRY_AUTH_FILE", (root_ / "mine.json").string());
  DockerKeychain podman_keychain(only_podman);
  EXPECT_EQ(podman_keychain.Resolve("mine.example")->username, "me");
}

TEST_F(NeighbourAuthTest, MalformedAuthJsonIsNamed) {
  env_.Set("REGISTRY_AUTH_FILE", (root_ / "bad.json").string());
  ASSERT_THAT(base::WriteFileAtomic(root_ / "bad.json", "{not json"), IsOk());
  DockerKeychain keychain(env_);
  absl::Status status = keychain.Resolve("x.example").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr((root_ / "bad.json").string()));
}

TEST_F(DockerConfigTest, SaveLoginSaysWhetherThePasswordIsInPlainText) {
  absl::StatusOr<SavedLogin> plain =
      SaveLogin(env_, "localhost:5000", {.username = "alice", .password = "s3cret"});
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(plain->file, ConfigPath());
  EXPECT_EQ(plain->helper, "");
  WriteConfig({{"credsStore", "fake"}});
  absl::StatusOr<SavedLogin> helped =
      SaveLogin(env_, "r.example", {.username = "carol", .password = "pw"});
  ASSERT_THAT(helped, IsOk());
  EXPECT_EQ(helped->helper, "fake");
}

}  // namespace
}  // namespace trainpkg::registry
