#include "registry/reference.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;

struct Golden {
  const char* input;
  const char* registry;
  const char* path;
  const char* tag;
  const char* digest;
};

constexpr char kSha[] = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(ReferenceTest, ParsesAndNormalisesGoldenCases) {
  const std::string d = std::string("@") + kSha;
  const Golden cases[] = {
      {"ubuntu", "docker.io", "library/ubuntu", "", ""},
      {"ubuntu:22.04", "docker.io", "library/ubuntu", "22.04", ""},
      {"docker.io/ubuntu", "docker.io", "library/ubuntu", "", ""},
      {"index.docker.io/ubuntu", "docker.io", "library/ubuntu", "", ""},
      {"docker.io/library/ubuntu:latest", "docker.io", "library/ubuntu", "latest", ""},
      {"bitnami/redis", "docker.io", "bitnami/redis", "", ""},
      {"gcr.io/my-proj/app:v1.2", "gcr.io", "my-proj/app", "v1.2", ""},
      {"us-central1-docker.pkg.dev/p/r/img:t", "us-central1-docker.pkg.dev", "p/r/img", "t", ""},
      {"localhost/app", "localhost", "app", "", ""},
      {"localhost:5000/app:1", "localhost:5000", "app", "1", ""},
      {"127.0.0.1:5000/a/b/c", "127.0.0.1:5000", "a/b/c", "", ""},
      {"[::1]:5000/app", "[::1]:5000", "app", "", ""},
      {"Example.COM/app", "Example.COM", "app", "", ""},
      {"myhost:443/team/app", "myhost:443", "team/app", "", ""},
      {"a/b__c/d-e---f/g.h_i", "docker.io", "a/b__c/d-e---f/g.h_i", "", ""},
      {"localhost:5000", "docker.io", "library/localhost", "5000", ""},
      {"app:_under", "docker.io", "library/app", "_under", ""},
      {"app:V1.0-rc_1", "docker.io", "library/app", "V1.0-rc_1", ""},
      {"gcr.io", "docker.io", "library/gcr.io", "", ""},
  };
  for (const Golden& c : cases) {
    SCOPED_TRACE(c.input);
    auto ref = ParseReference(c.input);
    ASSERT_THAT(ref, IsOk());
    EXPECT_EQ(ref->repository.registry, c.registry);
    EXPECT_EQ(ref->repository.path, c.path);
    EXPECT_EQ(ref->tag, c.tag);
    EXPECT_EQ(ref->digest.ToString(), c.digest);
  }
}

TEST(ReferenceTest, ParsesDigestsWithAndWithoutTags) {
  auto by_digest = ParseReference(std::string("gcr.io/p/app@") + kSha);
  ASSERT_THAT(by_digest, IsOk());
  EXPECT_EQ(by_digest->digest.ToString(), kSha);
  EXPECT_EQ(by_digest->tag, "");
  EXPECT_EQ(by_digest->Identifier(), kSha);

  auto both = ParseReference(std::string("localhost:5000/app:v1@") + kSha);
  ASSERT_THAT(both, IsOk());
  EXPECT_EQ(both->repository.registry, "localhost:5000");
  EXPECT_EQ(both->tag, "v1");
  EXPECT_EQ(both->Identifier(), kSha);
  EXPECT_EQ(both->String(), std::string("localhost:5000/app:v1@") + kSha);

  auto sha512 = ParseReference("app@sha512:" + std::string(128, 'a'));
  ASSERT_THAT(sha512, IsOk());
  EXPECT_EQ(sha512->digest.algorithm(), oci::DigestAlgorithm::kSha512);
}

TEST(ReferenceTest, IdentifierDefaultsToLatestAndStringIsNormalised) {
  auto ref = ParseReference("ubuntu");
  ASSERT_THAT(ref, IsOk());
  EXPECT_EQ(ref->Identifier(), "latest");
  EXPECT_EQ(ref->String(), "docker.io/library/ubuntu");
  EXPECT_EQ(ref->repository.Name(), "docker.io/library/ubuntu");
}

struct Bad {
  std::string input;
  std::string message_part;
};

TEST(ReferenceTest, RejectsInvalidReferencesNamingThePart) {
  const Bad cases[] = {
      {"", "empty"},
      {"Ubuntu", "must be lowercase"},
      {"gcr.io/My/app", "must be lowercase"},
      {"app:", "tag \"\" is invalid"},
      {"app:-x", "tag \"-x\" is invalid"},
      {"app:.x", "tag \".x\" is invalid"},
      {"app:a+b", "tag \"a+b\" is invalid"},
      {"app:" + std::string(129, 'a'), "1 to 128"},
      {"app@sha256:abc", "sha256 needs 64 hex digits"},
      {"app@sha256:" + std::string(64, 'A'), "lowercase hex"},
      {"app@md5", "<algorithm>:<encoded>"},
      {"app@sha384:" + std::string(96, 'a'), "unsupported digest algorithm \"sha384\""},
      {"app@1sha:0123456789abcdef0123456789abcdef", "algorithm"},
      {"a__-b", "path component \"a__-b\""},
      {"a/-b", "path component \"-b\""},
      {"a//b", "path component \"\""},
      {"a/b/", "path component \"\""},
      {"a_", "path component \"a_\""},
      {"a...b", "path component"},
      {"a___b", "path component"},
      {"localhost:abc/app", "port \"abc\""},
      {"localhost:123456/app", "port \"123456\""},
      {"localhost:/app", "port \"\""},
      {"-bad.com/app", "registry host \"-bad.com\""},
      {"bad-.com/app", "registry host"},
      {"a..b.com/app", "registry host"},
      {"[zz::1]/app", "IPv6"},
      {"gcr.io/", "path after the registry is empty"},
      {std::string(64, 'a'), "image ID"},
      {"gcr.io/" + std::string(250, 'a'), "at most 255"},
      {"app@", "invalid"},
      {"app tag", "path component"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.input);
    auto ref = ParseReference(c.input);
    ASSERT_FALSE(ref.ok()) << ref->String();
    EXPECT_EQ(ref.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(ref.status().message()), HasSubstr(c.message_part));
  }
}

TEST(ReferenceTest, ErrorQuotesTheWholeInput) {
  auto ref = ParseReference("gcr.io/p/app:bad!tag");
  ASSERT_FALSE(ref.ok());
  EXPECT_THAT(std::string(ref.status().message()),
              HasSubstr("invalid reference \"gcr.io/p/app:bad!tag\": tag \"bad!tag\""));
}

TEST(ReferenceTest, NameOfExactly255CharactersIsAccepted) {
  std::string path(255 - std::string("gcr.io/").size(), 'a');
  EXPECT_THAT(ParseReference("gcr.io/" + path), IsOk());
  EXPECT_FALSE(ParseReference("gcr.io/" + path + "a").ok());
}

TEST(ReferenceTest, ParseRepositoryRejectsTagsAndDigests) {
  auto repo = ParseRepository("localhost:5000/team/app");
  ASSERT_THAT(repo, IsOk());
  EXPECT_EQ(repo->registry, "localhost:5000");
  EXPECT_EQ(repo->path, "team/app");
  EXPECT_FALSE(ParseRepository("team/app:v1").ok());
  EXPECT_FALSE(ParseRepository(std::string("team/app@") + kSha).ok());
}

TEST(ReferenceTest, ApiHostAndLoopback) {
  EXPECT_EQ(RegistryApiHost("docker.io"), "registry-1.docker.io");
  EXPECT_EQ(RegistryApiHost("gcr.io"), "gcr.io");
  for (const char* loop : {"localhost", "localhost:5000", "127.0.0.1", "127.0.0.1:5055",
                           "127.1.2.3:1", "[::1]:5000", "reg.localhost:80"}) {
    EXPECT_TRUE(IsLoopbackRegistry(loop)) << loop;
  }
  for (const char* remote : {"gcr.io", "localhost.com", "127.0.0.1.nip.io", "10.0.0.1:5000",
                             "[::2]:5000", "docker.io", "1270.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackRegistry(remote)) << remote;
  }
}

}  // namespace
}  // namespace trainpkg::registry
