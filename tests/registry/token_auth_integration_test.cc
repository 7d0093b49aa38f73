// Token authentication end to end: a real docker-registry in `auth: token:`
// mode trusting a test CA, and the test token issuer (token_issuer.h) that
// signs RS256 JWTs with a certificate from that CA.
#include <filesystem>
#include <random>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http/curl_transport.h"
#include "registry/auth/credential.h"
#include "registry/image_puller.h"
#include "registry/image_pusher.h"
#include "registry/registry_client.h"
#include "tests/http/scripted_transport.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/registry/token_issuer.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::Contains;
using ::testing::Each;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::PseudoRandomBytes;
using testing::RegistryServer;
using testing::TokenIssuer;
using testing::TokenIssuerOptions;
using testing::WriteTestImage;

std::vector<BlobAction> Actions(const TransferResult& result) {
  std::vector<BlobAction> actions;
  for (const BlobReport& blob : result.blobs) actions.push_back(blob.action);
  return actions;
}

class TokenAuthTest : public ::testing::Test {
 protected:
  void TearDown() override {
    server_.Stop();
    issuer_.Stop();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  // Starts the issuer and the registry trusting it, and writes a one-layer
  // image into a layout.
  void Start(const TokenIssuerOptions& options) {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("trainpkg-token-{}-{}", ::getpid(), std::random_device{}());
    ASSERT_THAT(issuer_.Start(dir_ / "issuer", options), IsOk());
    absl::Status started = server_.Start({.token = issuer_.RegistryAuth()});
    ASSERT_THAT(started, IsOk());
    auto layout = oci::Layout::Create(dir_ / "src");
    ASSERT_THAT(layout, IsOk());
    layout_ = *layout;
    auto image = WriteTestImage(*layout_, "v1", {PseudoRandomBytes(200 * 1024, 21)});
    ASSERT_THAT(image, IsOk());
    image_ = *image;
  }

  std::unique_ptr<RegistryClient> Client(Credential credential, base::Clock* clock = nullptr) {
    RegistryClientOptions options;
    options.keychain = std::make_shared<StaticKeychain>(std::move(credential));
    options.transport = http::MakeCurlTransport({});
    options.retry.initial_backoff = absl::Milliseconds(5);
    options.clock = clock;
    return std::make_unique<RegistryClient>(options);
  }

  static Credential Password() { return {.username = "tester", .password = "s3cret"}; }

  Reference Ref(const std::string& text) {
    auto ref = ParseReference(server_.host() + "/" + text);
    EXPECT_THAT(ref, IsOk());
    return *ref;
  }

  absl::StatusOr<TransferResult> Push(RegistryClient& client, const std::string& target,
                                      const PushOptions& options = {}) {
    return PushImage(client, *layout_, "v1", Ref(target), options);
  }

  std::filesystem::path dir_;
  TokenIssuer issuer_;
  RegistryServer server_;
  std::optional<oci::Layout> layout_;
  testing::TestImage image_;
};

TEST_F(TokenAuthTest, PushesRepushesMountsPullsAndDeletesWithTokens) {
  Start({});
  auto client = Client(Password());
  auto first = Push(*client, "team/app:v1");
  ASSERT_THAT(first, IsOk()) << first.status() << server_.Log();
  EXPECT_THAT(Actions(*first), Each(BlobAction::kPushed));
  EXPECT_EQ(first->root.digest, image_.manifest.digest);

  auto again = Push(*client, "team/app:v1");
  ASSERT_THAT(again, IsOk());
  EXPECT_THAT(Actions(*again), Each(BlobAction::kExists));

  PushOptions mount;
  mount.mount_sources = {Ref("team/app").repository};
  auto other = Push(*client, "other/app:v1", mount);
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(Actions(*other), Each(BlobAction::kMounted));
  EXPECT_THAT(issuer_.Scopes(), Contains("repository:team/app:pull"))
      << "the mount source's pull was asked for";

  auto dst = oci::Layout::Create(dir_ / "dst");
  ASSERT_THAT(dst, IsOk());
  auto pulled = PullImage(*client, Ref("other/app:v1"), *dst, "copy", {});
  ASSERT_THAT(pulled, IsOk());
  EXPECT_EQ(dst->ReadBlob(image_.layers[0].digest).value_or(""),
            layout_->ReadBlob(image_.layers[0].digest).value_or("src"));

  Reference by_digest = Ref("other/app");
  by_digest.digest = image_.manifest.digest;
  absl::Status deleted = client->DeleteManifest(by_digest);
  ASSERT_THAT(deleted, IsOk());
  EXPECT_THAT(issuer_.Scopes(), Contains("repository:other/app:delete"));
  EXPECT_EQ(client->GetManifest(by_digest).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(client->GetManifest(Ref("team/app:v1")).status().code(), absl::StatusCode::kOk)
      << "the other repository keeps its manifest";
  EXPECT_EQ(issuer_.posts, 0) << "a password is sent to the GET endpoint, like docker";
}

TEST_F(TokenAuthTest, TokenTheRegistryRejectsAsExpiredIsFetchedAgain) {
  Start({.expired_tokens = 1});
  auto client = Client(Password());
  auto pushed = Push(*client, "team/app:v1");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_GE(issuer_.issued, 2);
}

TEST_F(TokenAuthTest, CachedTokenIsRenewedBeforeItsExpiry) {
  Start({.expires_in = 120});
  trainpkg::testing::FakeClock clock;
  auto client = Client(Password(), &clock);
  ASSERT_TRUE(client->GetManifest(Ref("team/app:v1")).status().code() ==
              absl::StatusCode::kNotFound);
  int fetched = issuer_.issued;
  ASSERT_EQ(client->GetManifest(Ref("team/app:v1")).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(issuer_.issued, fetched) << "the cached token was reused";
  clock.Advance(absl::Seconds(110));  // past 90% of the lifetime
  ASSERT_EQ(client->GetManifest(Ref("team/app:v1")).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(issuer_.issued, fetched + 1);
}

TEST_F(TokenAuthTest, WrongPasswordIsAClearUnauthenticatedError) {
  Start({});
  auto client = Client({.username = "tester", .password = "wrong-password"});
  auto pushed = Push(*client, "team/app:v1");
  ASSERT_EQ(pushed.status().code(), absl::StatusCode::kUnauthenticated) << pushed.status();
  std::string message(pushed.status().message());
  EXPECT_THAT(message, HasSubstr("getting a token"));
  EXPECT_THAT(message, HasSubstr("invalid username or password"));
  EXPECT_THAT(message, Not(HasSubstr("wrong-password")));
  EXPECT_GE(issuer_.refused, 1);
}

TEST_F(TokenAuthTest, AnonymousPushIsRefused) {
  Start({});
  auto client = Client({});
  auto pushed = Push(*client, "team/app:v1");
  EXPECT_EQ(pushed.status().code(), absl::StatusCode::kUnauthenticated) << pushed.status();
}

TEST_F(TokenAuthTest, IdentityTokenUsesTheOAuth2Endpoint) {
  Start({});
  auto client = Client({.identity_token = "refresh-0123456789"});
  auto pushed = Push(*client, "team/app:v1");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_GE(issuer_.posts, 1);
  EXPECT_EQ(issuer_.gets, 0);
}

TEST_F(TokenAuthTest, FallsBackToGetWhenThereIsNoOAuth2Endpoint) {
  Start({.oauth_post = false});
  Credential credential = Password();
  credential.identity_token = "refresh-0123456789";
  auto client = Client(credential);
  auto pushed = Push(*client, "team/app:v1");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_GE(issuer_.posts, 1);
  EXPECT_GE(issuer_.gets, 1);
}

}  // namespace
}  // namespace trainpkg::registry
