#include "registry/auth/auth_transport.h"

#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/auth/scope.h"
#include "tests/http/scripted_transport.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using http::testing::RecordedRequest;
using http::testing::Response;
using http::testing::ScriptedTransport;
using ::testing::HasSubstr;
using ::testing::Not;
using trainpkg::testing::FakeClock;

class StaticKeychain : public Keychain {
 public:
  explicit StaticKeychain(Credential c) : credential_(std::move(c)) {}
  absl::StatusOr<Credential> Resolve(std::string_view) override { return credential_; }

 private:
  Credential credential_;
};

constexpr char kBearerChallenge[] =
    "Bearer realm=\"https://auth.test/token\",service=\"svc\",scope=\"repository:app:pull\"";

// A registry at https://r that wants bearer token "good-<n>" and a token
// server that hands out good-1, good-2, … to GET (Basic user:pw) and POST.
class AuthFlowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    inner_->SetHandler([this](const RecordedRequest& r) -> absl::StatusOr<http::HttpResponse> {
      if (absl::StartsWith(r.url, "https://auth.test/token")) return TokenServer(r);
      std::string auth = r.headers.Get("Authorization").value_or("");
      if (absl::StartsWith(auth, "Bearer good-") && auth != revoked_) return Response(200, "ok");
      return Response(401, R"({"errors":[{"code":"UNAUTHORIZED","message":"nope"}]})",
                      {{"WWW-Authenticate", kBearerChallenge}});
    });
  }

  absl::StatusOr<http::HttpResponse> TokenServer(const RecordedRequest& r) {
    if (r.method == "POST") {
      if (!oauth_) return Response(404, "404 page not found");
      if (!absl::StrContains(r.body, "grant_type=refresh_token") ||
          !absl::StrContains(r.body, "refresh_token=idtok")) {
        return Response(400, R"({"error":"bad form"})");
      }
      return Response(200, fmt::format(R"({{"access_token":"good-{}","expires_in":300,
                                          "refresh_token":"idtok"}})",
                                       ++issued_));
    }
    std::string basic = "Basic " + absl::Base64Escape("user:pw");
    if (r.headers.Get("Authorization") != basic) {
      return Response(401, R"({"details":"incorrect username or password"})");
    }
    return Response(200, fmt::format(R"({{"token":"good-{}","expires_in":300}})", ++issued_));
  }

  AuthTransport Transport(Credential credential, std::vector<std::string> scopes) {
    auto auth = std::make_shared<Authenticator>(
        "r", "https://r", std::make_shared<StaticKeychain>(std::move(credential)), inner_, clock_);
    return AuthTransport(inner_, auth, std::move(scopes));
  }

  int TokenRequests() const {
    int n = 0;
    for (const auto& r : inner_->requests()) n += absl::StartsWith(r.url, "https://auth.test/");
    return n;
  }

  FakeClock clock_;
  std::shared_ptr<ScriptedTransport> inner_ = std::make_shared<ScriptedTransport>();
  bool oauth_ = false;
  int issued_ = 0;
  std::string revoked_;
};

TEST_F(AuthFlowTest, BearerTokenWithBasicCredentialsAndScopesInTheQuery) {
  auto t = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  auto response = t.Send(http::MakeRequest("GET", "https://r/v2/app/manifests/v1", true));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  const auto& reqs = inner_->requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[1].url, "https://auth.test/token?service=svc&scope=repository%3Aapp%3Apull");
  EXPECT_EQ(reqs[2].headers.Get("Authorization"), "Bearer good-1");
}

TEST_F(AuthFlowTest, CachesTokensPerScopeAndRefreshesOnExpiry) {
  auto t = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  EXPECT_EQ(TokenRequests(), 1);
  clock_.Advance(absl::Seconds(280));  // past 90% of 300 s
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  EXPECT_EQ(TokenRequests(), 2);
  EXPECT_EQ(inner_->requests().back().headers.Get("Authorization"), "Bearer good-2");
}

TEST_F(AuthFlowTest, ARejectedTokenIsFetchedAgainOnce) {
  auto t = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  revoked_ = "Bearer good-1";
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  EXPECT_EQ(inner_->requests().back().headers.Get("Authorization"), "Bearer good-2");
}

TEST_F(AuthFlowTest, AFirstTokenRefusedAtOnceIsReplacedOnceThenThe401IsTheAnswer) {
  auto t = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  revoked_ = "Bearer good-1";
  auto replaced = t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true));
  ASSERT_THAT(replaced, IsOk());
  EXPECT_EQ(replaced->status, 200);
  EXPECT_EQ(TokenRequests(), 2);

  auto other = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  inner_->SetHandler([this](const RecordedRequest& r) -> absl::StatusOr<http::HttpResponse> {
    if (absl::StartsWith(r.url, "https://auth.test/token")) return TokenServer(r);
    return Response(401, R"({"errors":[{"code":"DENIED","message":"never"}]})",
                    {{"WWW-Authenticate", kBearerChallenge}});
  });
  size_t before = inner_->requests().size();
  auto refused = other.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true));
  ASSERT_THAT(refused, IsOk());
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(inner_->requests().size() - before, 5u)
      << "request, token, request, token, request: two answers at most";
}

TEST_F(AuthFlowTest, PushScopesAskForPullPushFirstThenTheChallengeScope) {
  auto t = Transport({.username = "user", .password = "pw"}, PushScopes("app", {"base"}));
  ASSERT_EQ(t.Send(http::MakeRequest("POST", "https://r/v2/app/blobs/uploads/", true))->status,
            200);
  EXPECT_EQ(inner_->requests()[1].url,
            "https://auth.test/token?service=svc&scope=repository%3Aapp%3Apull%2Cpush"
            "&scope=repository%3Abase%3Apull&scope=repository%3Aapp%3Apull");
}

TEST_F(AuthFlowTest, IdentityTokenUsesOAuthPost) {
  oauth_ = true;
  auto t = Transport({.identity_token = "idtok"}, PullScopes("app"));
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  const auto& post = inner_->requests()[1];
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.headers.Get("Content-Type"), "application/x-www-form-urlencoded");
  EXPECT_THAT(post.body, HasSubstr("client_id=trainpkg"));
  EXPECT_THAT(post.body, HasSubstr("service=svc"));
  EXPECT_THAT(post.body, HasSubstr("scope=repository%3Aapp%3Apull"));
}

TEST_F(AuthFlowTest, OAuthPostFallsBackToGetOn404) {
  auto t = Transport({.username = "user", .password = "pw", .identity_token = "idtok"},
                     PullScopes("app"));
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  ASSERT_EQ(inner_->requests().size(), 4u);
  EXPECT_EQ(inner_->requests()[1].method, "POST");
  EXPECT_EQ(inner_->requests()[2].method, "GET");
}

TEST_F(AuthFlowTest, RefusedTokenIsUnauthenticatedWithoutTheSecret) {
  auto t = Transport({.username = "user", .password = "wrong-secret"}, PullScopes("app"));
  auto response = t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true));
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(
      std::string(response.status().message()),
      HasSubstr("getting a token for \"repository:app:pull\" from https://auth.test/token"));
  EXPECT_THAT(std::string(response.status().message()), Not(HasSubstr("wrong-secret")));
}

TEST_F(AuthFlowTest, RegistryTokenIsSentAsIs) {
  auto t = Transport({.registry_token = "good-static"}, PullScopes("app"));
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  EXPECT_EQ(TokenRequests(), 0);
}

// Issue 16 finding 8: credentials go to the registry's own origin only; an
// upload Location or Link on another host, port or scheme gets none, and
// its 401 is not answered.
TEST_F(AuthFlowTest, RequestsToAnotherOriginGetNoCredentials) {
  auto t = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true))->status, 200);
  for (const char* url : {"https://elsewhere/upload?_state=x", "http://r/v2/app/tags/list",
                          "https://r:8443/v2/app/tags/list", "https://user@r.evil/v2/"}) {
    size_t before = inner_->requests().size();
    absl::StatusOr<http::HttpResponse> response = t.Send(http::MakeRequest("GET", url, true));
    ASSERT_THAT(response, IsOk()) << url << ": " << response.status();
    EXPECT_EQ(response->status, 401) << url;
    ASSERT_EQ(inner_->requests().size(), before + 1) << url << ": the challenge was answered";
    EXPECT_FALSE(inner_->requests().back().headers.Get("Authorization").has_value()) << url;
  }
  // The same origin however written: default port, upper case.
  ASSERT_EQ(t.Send(http::MakeRequest("GET", "https://R:443/v2/app/tags/list", true))->status, 200);
}

TEST_F(AuthFlowTest, PlainHttpRealmForAnHttpsRegistryIsRefused) {
  inner_->SetHandler([](const RecordedRequest&) -> absl::StatusOr<http::HttpResponse> {
    return Response(401, "", {{"WWW-Authenticate", "Bearer realm=\"http://auth.test/token\""}});
  });
  auto t = Transport({.username = "user", .password = "pw"}, PullScopes("app"));
  absl::StatusOr<http::HttpResponse> response =
      t.Send(http::MakeRequest("GET", "https://r/v2/app/tags/list", true));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(response.status().message()),
              HasSubstr("plain-http token realm http://auth.test/token"));
  EXPECT_EQ(TokenRequests(), 0);
  EXPECT_EQ(inner_->requests().size(), 1u);
}

TEST(BasicAuthTest, AnswersBasicOnceAndReturnsTheSecond401) {
  auto inner = std::make_shared<ScriptedTransport>();
  const std::string good = "Basic " + absl::Base64Escape("alice:right");
  inner->SetHandler([&](const RecordedRequest& r) -> absl::StatusOr<http::HttpResponse> {
    if (r.headers.Get("Authorization") == good) return Response(200);
    return Response(401,
                    R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]})",
                    {{"WWW-Authenticate", "Basic realm=\"basic-realm\""}});
  });
  FakeClock clock;
  for (const char* password : {"right", "wrong"}) {
    auto auth = std::make_shared<Authenticator>(
        "r", "https://r",
        std::make_shared<StaticKeychain>(Credential{.username = "alice", .password = password}),
        inner, clock);
    AuthTransport t(inner, auth, PullScopes("app"));
    auto first = t.Send(http::MakeRequest("GET", "https://r/v2/", true));
    ASSERT_THAT(first, IsOk());
    EXPECT_EQ(first->status, std::string(password) == "right" ? 200 : 401) << password;
    size_t before = inner->requests().size();
    (void)t.Send(http::MakeRequest("GET", "https://r/v2/", true));
    EXPECT_EQ(inner->requests().size() - before, 1u)
        << "basic credentials are sent up front once the scheme is known";
  }
}

}  // namespace
}  // namespace trainpkg::registry
