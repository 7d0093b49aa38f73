// serve's RequestGuard alone: which Host, Origin, Authorization and body
// headers pass, and the refusals' statuses and google.rpc.Status bodies.
#include "sdk/serve/request_guard.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::sdk::serve {
namespace {

using ::testing::HasSubstr;

const std::string kToken(43, 't');
const std::string kPageSecret(43, 'p');

using Headers = std::multimap<std::string, std::string>;

// The guard's verdict: 0 when the request passes, else the HTTP status.
class RequestGuardTest : public ::testing::Test {
 protected:
  int Check(const Headers& headers, std::string* message = nullptr,
            const RequestTarget& target = {}) const {
    std::optional<RestReply> reply = guard_.Check(
        [&](std::string_view name) {
          std::vector<std::string> values;
          for (const auto& [key, value] : headers) {
            if (absl::EqualsIgnoreCase(key, std::string(name))) values.push_back(value);
          }
          return values;
        },
        target);
    if (!reply.has_value()) return 0;
    EXPECT_EQ(reply->body["error"]["code"], reply->status);
    if (message != nullptr) *message = reply->body["error"]["message"].get<std::string>();
    return reply->status;
  }

  static Headers Good() {
    return {{"Host", "127.0.0.1:8080"}, {"Authorization", "Bearer " + kToken}};
  }
  static Headers With(Headers headers, const std::string& name, const std::string& value) {
    headers.erase(name);
    headers.emplace(name, value);
    return headers;
  }

  RequestGuard guard_{{.host = "127.0.0.1",
                       .port = 8080,
                       .token = kToken,
                       .page_secret = kPageSecret,
                       .token_hint = "hint"}};
};

TEST_F(RequestGuardTest, HostMustBeThisServer) {
  EXPECT_EQ(Check(Good()), 0);
  for (const char* host : {"localhost:8080", "LocalHost:8080", "[::1]:8080"}) {
    EXPECT_EQ(Check(With(Good(), "Host", host)), 0) << host;
  }
  for (const char* host : {"evil.example:8080", "127.0.0.1:8081", "127.0.0.1", "127.0.0.2:8080",
                           "localhost.evil.example:8080", ""}) {
    EXPECT_EQ(Check(With(Good(), "Host", host)), 403) << host;
  }
  Headers missing = Good();
  missing.erase("Host");
  std::string message;
  EXPECT_EQ(Check(missing, &message), 403);
  EXPECT_THAT(message, HasSubstr("DNS rebinding"));
}

TEST_F(RequestGuardTest, OriginMustBeThisServerWhenPresent) {
  EXPECT_EQ(Check(With(Good(), "Origin", "http://127.0.0.1:8080")), 0);
  EXPECT_EQ(Check(With(Good(), "Origin", "http://localhost:8080")), 0);
  for (const char* origin : {"http://evil.example", "null", "https://127.0.0.1:8080",
                             "http://127.0.0.1:8081", "http://127.0.0.1:8080.evil.example"}) {
    EXPECT_EQ(Check(With(Good(), "Origin", origin)), 403) << origin;
  }
}

TEST_F(RequestGuardTest, TokenIsRequired) {
  Headers none = Good();
  none.erase("Authorization");
  std::string message;
  EXPECT_EQ(Check(none, &message), 401);
  EXPECT_THAT(message, HasSubstr("Authorization: Bearer <token>"));
  EXPECT_THAT(message, HasSubstr("hint"));
  EXPECT_EQ(Check(With(Good(), "Authorization", "bearer " + kToken)), 0);
  EXPECT_EQ(Check(With(Good(), "Authorization", "Bearer " + kToken + "x")), 401);
  EXPECT_EQ(Check(With(Good(), "Authorization", "Bearer " + kToken.substr(1))), 401);
  EXPECT_EQ(Check(With(Good(), "Authorization", "Basic " + kToken)), 401);
  EXPECT_EQ(Check(With(Good(), "Authorization", "Bearer")), 401);
  // Twice, even with the right one first.
  Headers twice = Good();
  twice.emplace("Authorization", "Bearer other");
  EXPECT_EQ(Check(twice), 400);
}

TEST_F(RequestGuardTest, BodiesAreSmallUncompressedJson) {
  Headers json = With(With(Good(), "Content-Type", "application/json"), "Content-Length", "10");
  EXPECT_EQ(Check(json), 0);
  EXPECT_EQ(Check(With(json, "Content-Type", "application/json; charset=UTF-8")), 0);
  EXPECT_EQ(Check(With(json, "Content-Type", "text/plain")), 415);
  EXPECT_EQ(Check(With(json, "Content-Type", "application/jsonx")), 415);
  Headers untyped = json;
  untyped.erase("Content-Type");
  EXPECT_EQ(Check(untyped), 415);
  EXPECT_EQ(Check(With(untyped, "Content-Length", "0")), 0);  // no body, no type needed
  EXPECT_EQ(Check(With(json, "Transfer-Encoding", "chunked")), 411);
  EXPECT_EQ(Check(With(json, "Content-Length", "1048576")), 0);
  EXPECT_EQ(Check(With(json, "Content-Length", "1048577")), 413);
  EXPECT_EQ(Check(With(json, "Content-Length", "99999999999999999999999")), 400);
  EXPECT_EQ(Check(With(json, "Content-Encoding", "gzip")), 415);
  EXPECT_EQ(Check(With(json, "Content-Encoding", "identity")), 0);
}

TEST(RequestGuardHostTest, OtherLoopbackAddressesAreExact) {
  RequestGuard guard({.host = "127.0.0.5", .port = 80, .token = kToken, .page_secret = "", .token_hint = ""});
  auto check = [&](const std::string& host) {
    return guard
        .Check([&](std::string_view name) {
          if (name == "Host") return std::vector<std::string>{host};
          if (name == "Authorization") return std::vector<std::string>{"Bearer " + kToken};
          return std::vector<std::string>{};
        })
        .has_value();
  };
  EXPECT_FALSE(check("127.0.0.5:80"));
  EXPECT_FALSE(check("127.0.0.5"));  // the default port may be left out
  EXPECT_TRUE(check("localhost:80"));
  EXPECT_TRUE(check("127.0.0.1:80"));
}

}  // namespace
}  // namespace trainpkg::sdk::serve

namespace trainpkg::sdk::serve {
namespace {

// The dashboard's cookie: a page of this origin reads pages and data and may
// cancel; nothing else (the Vertex API, other sites' pages, requests without
// an Origin that change something) gets through with it.
class PageCookieTest : public RequestGuardTest {
 protected:
  static Headers Page() {
    return {{"Host", "127.0.0.1:8080"},
            {"Cookie", "other=1; trainpkg-serve-8080=" + kPageSecret + "; x=y"},
            {"Sec-Fetch-Site", "same-origin"}};
  }
  int CheckPage(const Headers& headers, std::string_view method, std::string_view path,
                std::string* message = nullptr) const {
    return Check(headers, message, {.method = method, .path = path});
  }
};

TEST_F(PageCookieTest, OpensTheDashboardFromItsOwnPages) {
  for (const char* path : {"/", "/ui", "/ui/", "/ui/jobs/abc", "/ui/api/jobs"}) {
    EXPECT_EQ(CheckPage(Page(), "GET", path), 0) << path;
  }
  Headers typed = Page();
  typed.erase("Sec-Fetch-Site");
  EXPECT_EQ(CheckPage(typed, "GET", "/ui/"), 0);  // a browser that does not send it
  EXPECT_EQ(CheckPage(With(Page(), "Sec-Fetch-Site", "none"), "GET", "/ui/"), 0);  // typed URL
  EXPECT_EQ(CheckPage(With(Page(), "Origin", "http://127.0.0.1:8080"), "POST",
                      "/ui/api/jobs/abc/cancel"),
            0);
}

TEST_F(PageCookieTest, NeverOpensTheVertexApi) {
  std::string message;
  EXPECT_EQ(CheckPage(Page(), "GET", "/v1/projects/p/locations/l/customJobs", &message), 401);
  EXPECT_THAT(message, HasSubstr("Authorization"));
  EXPECT_EQ(CheckPage(With(Page(), "Origin", "http://127.0.0.1:8080"), "POST",
                      "/v1/projects/p/locations/l/customJobs"),
            401);
  EXPECT_EQ(CheckPage(Page(), "GET", "/uix"), 401);
}

TEST_F(PageCookieTest, OtherSitesAndPortsAreRefused) {
  std::string message;
  // Another port of this host is the same site: SameSite=Strict lets the
  // cookie through, Sec-Fetch-Site does not.
  EXPECT_EQ(CheckPage(With(Page(), "Sec-Fetch-Site", "same-site"), "GET", "/ui/api/jobs", &message),
            403);
  EXPECT_THAT(message, HasSubstr("Sec-Fetch-Site"));
  EXPECT_EQ(CheckPage(With(Page(), "Sec-Fetch-Site", "cross-site"), "GET", "/ui/"), 403);
  EXPECT_EQ(CheckPage(With(Page(), "Origin", "http://127.0.0.1:9999"), "POST",
                      "/ui/api/jobs/abc/cancel"),
            403);
  // A cancel without an Origin is not a browser's same-origin request.
  EXPECT_EQ(CheckPage(Page(), "POST", "/ui/api/jobs/abc/cancel", &message), 403);
  EXPECT_THAT(message, HasSubstr("Origin"));
}

TEST_F(PageCookieTest, OnlyThisInstancesSecretUnderThisPortsName) {
  EXPECT_EQ(CheckPage(With(Page(), "Cookie", "trainpkg-serve-8080=" + std::string(43, 'q')), "GET",
                      "/ui/"),
            401);
  // The bearer token is not the cookie's value, and another port's cookie is not this one's.
  EXPECT_EQ(CheckPage(With(Page(), "Cookie", "trainpkg-serve-8080=" + kToken), "GET", "/ui/"), 401);
  EXPECT_EQ(CheckPage(With(Page(), "Cookie", "trainpkg-serve-8081=" + kPageSecret), "GET", "/ui/"),
            401);
  EXPECT_EQ(CheckPage(With(Page(), "Host", "evil.example:8080"), "GET", "/ui/"), 403);
}

TEST_F(PageCookieTest, TheUrlTokenBecomesTheCookie) {
  auto headers = [](const Headers& h) {
    return [h](std::string_view name) {
      std::vector<std::string> values;
      for (const auto& [key, value] : h) {
        if (absl::EqualsIgnoreCase(key, std::string(name))) values.push_back(value);
      }
      return values;
    };
  };
  const Headers host = {{"Host", "localhost:8080"}};
  EXPECT_FALSE(guard_.CheckPageToken(headers(host), kToken).has_value());
  std::optional<RestReply> wrong = guard_.CheckPageToken(headers(host), kPageSecret);
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(wrong->status, 401);
  std::optional<RestReply> rebound =
      guard_.CheckPageToken(headers({{"Host", "evil.example:8080"}}), kToken);
  ASSERT_TRUE(rebound.has_value());
  EXPECT_EQ(rebound->status, 403);
  EXPECT_EQ(guard_.PageCookie(),
            "trainpkg-serve-8080=" + kPageSecret + "; HttpOnly; SameSite=Strict; Path=/");
  // Without a page secret there is no dashboard: the URL token opens nothing.
  RequestGuard no_pages(
      {.host = "127.0.0.1", .port = 8080, .token = kToken, .page_secret = "", .token_hint = ""});
  EXPECT_TRUE(no_pages.CheckPageToken(headers(host), kToken).has_value());
  EXPECT_EQ(no_pages.Check(headers(Page()), {.method = "GET", .path = "/ui/"})->status, 401);
}

}  // namespace
}  // namespace trainpkg::sdk::serve
