// Where the sdk finds a local serve's token, and that the Vertex client
// factory uses it only for loopback endpoints and never over an explicit one.
#include "sdk/vertex/local_serve_token.h"

#include <sys/stat.h>

#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/auth/credentials.h"
#include "sdk/serve/serve_token_file.h"
#include "sdk/vertex/vertex_client_factory.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::vertex {
namespace {

using ::testing::HasSubstr;

TEST(LocalServeTokenTest, LoopbackEndpointsOnly) {
  auto parsed = [](std::string_view endpoint) {
    std::optional<LoopbackEndpoint> local = ParseLoopbackEndpoint(endpoint);
    return local.has_value() ? local->host + " " + std::to_string(local->port) : "-";
  };
  EXPECT_EQ(parsed("http://127.0.0.1:8080"), "127.0.0.1 8080");
  EXPECT_EQ(parsed("http://127.0.0.1:8080/"), "127.0.0.1 8080");
  EXPECT_EQ(parsed("HTTP://localhost"), "localhost 80");
  EXPECT_EQ(parsed("http://[::1]:9000/v1"), "::1 9000");
  EXPECT_EQ(parsed("http://127.9.0.1:1"), "127.9.0.1 1");
  EXPECT_EQ(parsed("https://127.0.0.1:8080"), "-");
  EXPECT_EQ(parsed("http://10.0.0.1:8080"), "-");
  EXPECT_EQ(parsed("http://evil.example:8080"), "-");
  EXPECT_EQ(parsed("http://user@127.0.0.1:8080"), "-");
  EXPECT_EQ(parsed("http://127.0.0.1:99999"), "-");
  EXPECT_EQ(parsed("https://us-central1-aiplatform.googleapis.com"), "-");
}

TEST(LocalServeTokenTest, ReadsTheFileServeWroteUnderAnyLoopbackSpelling) {
  testing::TempDir home;
  const std::string token(43, 'k');
  absl::StatusOr<std::string> generated = serve::GenerateServeToken();
  ASSERT_THAT(generated, IsOk());
  EXPECT_TRUE(IsWellFormedServeToken(*generated)) << *generated;
  EXPECT_NE(*generated, serve::GenerateServeToken().value_or(""));
  {
    absl::StatusOr<serve::ServeTokenFile> file =
        serve::ServeTokenFile::Write(LocalServeTokenPath(home.path(), "127.0.0.1", 8080), token);
    ASSERT_THAT(file, IsOk());
    for (const char* host : {"127.0.0.1", "localhost", "::1"}) {
      absl::StatusOr<std::string> read = ReadLocalServeToken(home.path(), {host, 8080});
      ASSERT_THAT(read, IsOk()) << host;
      EXPECT_EQ(*read, token);
    }
    EXPECT_TRUE(absl::IsNotFound(ReadLocalServeToken(home.path(), {"127.0.0.1", 8081}).status()));
    EXPECT_TRUE(absl::IsNotFound(ReadLocalServeToken(home.path(), {"127.0.0.2", 8080}).status()));
  }
  // Gone with the ServeTokenFile.
  absl::Status gone = ReadLocalServeToken(home.path(), {"127.0.0.1", 8080}).status();
  EXPECT_TRUE(absl::IsNotFound(gone)) << gone;
  EXPECT_THAT(gone.message(), HasSubstr("127.0.0.1_8080.token"));
  // Not a token: refused, not sent.
  ASSERT_TRUE(
      base::WriteFileAtomic(LocalServeTokenPath(home.path(), "127.0.0.1", 1), "a b\n").ok());
  EXPECT_EQ(ReadLocalServeToken(home.path(), {"127.0.0.1", 1}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(LocalServeTokenTest, ClientFactoryPicksTheTokenUpForLocalServeOnly) {
  testing::TempDir home;
  base::MapEnvironment env({{"TRAINPKG_HOME", home.path().string()}});
  // No token file: a clear error instead of Google credentials sent to a local port.
  absl::Status missing = LocalServeCredentials("http://127.0.0.1:8080", env).status();
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
  EXPECT_THAT(missing.message(), HasSubstr("trainpkg serve"));
  EXPECT_THAT(missing.message(), HasSubstr("127.0.0.1_8080.token"));
  // Other endpoints: no local credentials (ADC applies).
  absl::StatusOr<std::shared_ptr<auth::Credentials>> remote =
      LocalServeCredentials("https://us-central1-aiplatform.googleapis.com", env);
  ASSERT_THAT(remote, IsOk());
  EXPECT_EQ(*remote, nullptr);

  const std::string token(43, 'k');
  absl::StatusOr<serve::ServeTokenFile> file =
      serve::ServeTokenFile::Write(LocalServeTokenPath(home.path(), "127.0.0.1", 8080), token);
  ASSERT_THAT(file, IsOk());
  absl::StatusOr<std::shared_ptr<auth::Credentials>> local =
      LocalServeCredentials("http://localhost:8080/", env);
  ASSERT_THAT(local, IsOk());
  ASSERT_NE(*local, nullptr);
  absl::StatusOr<auth::AccessToken> got = (*local)->GetToken(absl::Now());
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->token, token);

  // An explicit credential wins and needs no file.
  VertexBackendOptions options;
  options.project = "p";
  options.location = "l";
  options.endpoint = "http://127.0.0.1:1";
  options.credentials = std::make_shared<auth::AccessTokenCredentials>("explicit");
  EXPECT_THAT(MakeVertexClient(options, env), IsOk());
  options.credentials = nullptr;
  EXPECT_TRUE(absl::IsNotFound(MakeVertexClient(options, env).status()));
}

}  // namespace
}  // namespace trainpkg::sdk::vertex
