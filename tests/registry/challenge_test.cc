#include "registry/auth/challenge.h"

#include "gtest/gtest.h"
#include "registry/auth/scope.h"

namespace trainpkg::registry {
namespace {

TEST(ChallengeTest, ParsesDockerHubBearer) {
  auto c = ParseChallenges(
      "Bearer realm=\"https://auth.docker.io/token\",service=\"registry.docker.io\","
      "scope=\"repository:samalba/my-app:pull,push\"");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].scheme, "bearer");
  EXPECT_EQ(c[0].Param("realm"), "https://auth.docker.io/token");
  EXPECT_EQ(c[0].Param("service"), "registry.docker.io");
  EXPECT_EQ(c[0].Param("scope"), "repository:samalba/my-app:pull,push");
  EXPECT_EQ(c[0].Param("error"), "");
}

TEST(ChallengeTest, ParsesBasicAndCaseInsensitiveNames) {
  auto c = ParseChallenges("BASIC Realm=\"basic-realm\"");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].scheme, "basic");
  EXPECT_EQ(c[0].Param("realm"), "basic-realm");
}

TEST(ChallengeTest, KeepsSpacesAndCommasInQuotedScopesAndPorts) {
  auto c = ParseChallenges(
      "Bearer realm=\"https://127.0.0.1:5443/token?x=1\", service=\"test-registry\", "
      "scope=\"repository:test/app:pull repository:test/app:push\", error=\"insufficient_scope\"");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].Param("realm"), "https://127.0.0.1:5443/token?x=1");
  EXPECT_EQ(c[0].Param("scope"), "repository:test/app:pull repository:test/app:push");
  EXPECT_EQ(c[0].Param("error"), "insufficient_scope");
}

TEST(ChallengeTest, ParsesSeveralChallengesInOneHeader) {
  auto c = ParseChallenges("Basic realm=\"a, b\", Bearer realm=\"https://t\",service=s");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].scheme, "basic");
  EXPECT_EQ(c[0].Param("realm"), "a, b");
  EXPECT_EQ(c[1].scheme, "bearer");
  EXPECT_EQ(c[1].Param("realm"), "https://t");
  EXPECT_EQ(c[1].Param("service"), "s");
}

TEST(ChallengeTest, UnescapesQuotedPairsAndToleratesJunk) {
  auto c = ParseChallenges("Bearer realm=\"say \\\"hi\\\"\"");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].Param("realm"), "say \"hi\"");
  EXPECT_TRUE(ParseChallenges("").empty());
  EXPECT_TRUE(ParseChallenges("   ,  ").empty());
  auto unterminated = ParseChallenges("Bearer realm=\"https://t");
  ASSERT_EQ(unterminated.size(), 1u);
  EXPECT_EQ(unterminated[0].Param("realm"), "https://t");
  auto bare = ParseChallenges("Negotiate");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_TRUE(bare[0].params.empty());
}

TEST(ScopeTest, BuildsPullPushAndMountScopes) {
  EXPECT_EQ(PullScopes("a/b"), std::vector<std::string>{"repository:a/b:pull"});
  EXPECT_EQ(PushScopes("a", {"b", "a"}),
            (std::vector<std::string>{"repository:a:pull,push", "repository:b:pull"}));
}

TEST(ScopeTest, MergesChallengeScopesAfterOurs) {
  EXPECT_EQ(MergeScopes({"repository:a:pull,push"}, "repository:a:pull repository:b:pull"),
            (std::vector<std::string>{"repository:a:pull,push", "repository:a:pull",
                                      "repository:b:pull"}));
  EXPECT_EQ(MergeScopes({"repository:a:pull"}, "repository:a:pull"),
            std::vector<std::string>{"repository:a:pull"});
  EXPECT_EQ(MergeScopes({}, ""), std::vector<std::string>{});
}

}  // namespace
}  // namespace trainpkg::registry
