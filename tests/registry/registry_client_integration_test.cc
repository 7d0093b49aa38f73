#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "base/environment.h"
#include "base/log.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/auth/docker_config.h"
#include "registry/oci/digest_builder.h"
#include "registry/registry_client.h"
#include "registry/registry_error.h"
#include "tests/registry/registry_server.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;
using testing::RegistryServer;
using testing::RegistryServerOptions;

constexpr char kOciManifest[] = "application/vnd.oci.image.manifest.v1+json";

std::string Bytes(size_t n, unsigned seed) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>((i * 2654435761u + seed) >> 13);
  return out;
}

RegistryClientOptions FastRetries(RegistryClientOptions options = {}) {
  options.retry.initial_backoff = absl::Milliseconds(10);
  return options;
}

struct PushedImage {
  oci::Digest manifest_digest;
  std::string layer;
  oci::Digest layer_digest;
};

// Pushes a layer, a config and an OCI manifest tagged `tag`; checks every step.
PushedImage PushImage(RegistryClient& client, const Reference& ref) {
  PushedImage image;
  image.layer = Bytes(3 * 1024 * 1024 + 17, 7);
  image.layer_digest = oci::Sha256Digest(image.layer);
  std::string config = R"({"architecture":"amd64","os":"linux","rootfs":{"type":"layers",)"
                       R"("diff_ids":[]}})";
  oci::Digest config_digest = oci::Sha256Digest(config);
  http::StringBodySource layer_body(image.layer), config_body(config);
  EXPECT_THAT(client.PushBlob(ref.repository, image.layer_digest, layer_body), IsOk());
  EXPECT_THAT(client.PushBlob(ref.repository, config_digest, config_body), IsOk());
  std::string manifest = fmt::format(
      R"({{"schemaVersion":2,"mediaType":"{}","config":{{"mediaType":)"
      R"("application/vnd.oci.image.config.v1+json","digest":"{}","size":{}}},"layers":[{{)"
      R"("mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{}","size":{}}}]}})",
      kOciManifest, config_digest.ToString(), config.size(), image.layer_digest.ToString(),
      image.layer.size());
  auto digest = client.PutManifest(ref, kOciManifest, manifest);
  EXPECT_THAT(digest, IsOk());
  image.manifest_digest = digest.value_or(oci::Digest());
  EXPECT_EQ(image.manifest_digest, oci::Sha256Digest(manifest));
  return image;
}

TEST(RegistryIntegrationTest, PushesAndPullsOverPlainHttpOnLoopback) {
  RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  RegistryClient client(FastRetries());
  ASSERT_THAT(client.Ping(server.host()), IsOk());
  auto ref = ParseReference(server.host() + "/team/app:v1");
  ASSERT_THAT(ref, IsOk());
  PushedImage image = PushImage(client, *ref);

  auto stat = client.StatBlob(ref->repository, image.layer_digest);
  ASSERT_THAT(stat, IsOk());
  ASSERT_TRUE(stat->has_value());
  EXPECT_EQ((*stat)->size, static_cast<int64_t>(image.layer.size()));
  std::string pulled;
  auto n = client.FetchBlob(ref->repository, image.layer_digest, image.layer.size(),
                            [&](std::string_view chunk) {
    pulled.append(chunk);
    return absl::OkStatus();
  });
  ASSERT_THAT(n, IsOk());
  EXPECT_EQ(*n, image.layer.size());
  EXPECT_TRUE(pulled == image.layer);

  auto by_tag = client.GetManifest(*ref);
  ASSERT_THAT(by_tag, IsOk());
  EXPECT_EQ(by_tag->digest, image.manifest_digest);
  EXPECT_EQ(by_tag->media_type, kOciManifest);
  Reference by_digest = *ref;
  by_digest.tag.clear();
  by_digest.digest = image.manifest_digest;
  auto pinned = client.GetManifest(by_digest);
  ASSERT_THAT(pinned, IsOk());
  EXPECT_EQ(pinned->bytes, by_tag->bytes);

  auto tags = client.ListTags(ref->repository);
  ASSERT_THAT(tags, IsOk());
  EXPECT_THAT(*tags, ::testing::ElementsAre("v1"));
}

TEST(RegistryIntegrationTest, MissingThingsAreNotFoundWithTheOciCode) {
  RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  RegistryClient client(FastRetries());
  Repository repo{server.host(), "team/app"};
  oci::Digest absent = oci::Sha256Digest("absent");
  auto stat = client.StatBlob(repo, absent);
  ASSERT_THAT(stat, IsOk());
  EXPECT_FALSE(stat->has_value());
  auto fetched =
      client.FetchBlob(repo, absent, 6, [](std::string_view) { return absl::OkStatus(); });
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(RegistryErrorCode(fetched.status()), "BLOB_UNKNOWN");
  auto manifest = client.GetManifest({repo, "nope", {}});
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(RegistryErrorCode(manifest.status()), "MANIFEST_UNKNOWN");
  EXPECT_THAT(std::string(manifest.status().message()),
              HasSubstr(fmt::format("pulling manifest {}/team/app:nope: HTTP 404: "
                                    "MANIFEST_UNKNOWN",
                                    server.host())));
}

TEST(RegistryIntegrationTest, WrongDigestAndMissingBlobsAreRejected) {
  RegistryServer server;
  ASSERT_THAT(server.Start({.relative_urls = true}), IsOk());
  RegistryClient client(FastRetries());
  Repository repo{server.host(), "app"};
  http::StringBodySource body("hello");
  auto wrong = client.PushBlob(repo, oci::Sha256Digest("other"), body);
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegistryErrorCode(wrong), "DIGEST_INVALID");
  http::StringBodySource again("hello");
  EXPECT_THAT(client.PushBlob(repo, oci::Sha256Digest("hello"), again), IsOk())
      << "relative Location URLs are resolved";
  std::string manifest = fmt::format(
      R"({{"schemaVersion":2,"mediaType":"{}","config":{{"mediaType":"a","digest":"{}",)"
      R"("size":1}},"layers":[]}})",
      kOciManifest, oci::Sha256Digest("missing").ToString());
  auto put = client.PutManifest({repo, "v1", {}}, kOciManifest, manifest);
  EXPECT_EQ(put.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegistryErrorCode(put.status()), "MANIFEST_BLOB_UNKNOWN");
}

class HtpasswdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.Start({.htpasswd_user = "tester", .htpasswd_password = "s3cret"}), IsOk());
    env_.Set("DOCKER_CONFIG", (server_.dir() / "docker").string());
    env_.Set("PATH", "/usr/bin:/bin");
  }

  RegistryClient Client() {
    RegistryClientOptions options = FastRetries();
    options.keychain = std::make_shared<DockerKeychain>(env_);
    return RegistryClient(options);
  }

  RegistryServer server_;
  base::MapEnvironment env_;
};

TEST_F(HtpasswdTest, LoggedInClientPushesAndPulls) {
  ASSERT_THAT(SaveLogin(env_, server_.host(), {.username = "tester", .password = "s3cret"}), IsOk());
  RegistryClient client = Client();
  ASSERT_THAT(client.Ping(server_.host()), IsOk());
  auto ref = ParseReference(server_.host() + "/secure/app:v2");
  ASSERT_THAT(ref, IsOk());
  PushedImage image = PushImage(client, *ref);
  auto manifest = client.GetManifest(*ref);
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->digest, image.manifest_digest);
}

TEST_F(HtpasswdTest, WrongPasswordIsUnauthenticatedWithTheRegistrysMessage) {
  ASSERT_THAT(SaveLogin(env_, server_.host(), {.username = "tester", .password = "wrong"}), IsOk());
  RegistryClient client = Client();
  absl::Status ping = client.Ping(server_.host());
  EXPECT_EQ(ping.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(ping.message()), HasSubstr("UNAUTHORIZED: authentication required"));
  EXPECT_THAT(std::string(ping.message()), ::testing::Not(HasSubstr("wrong")));
  http::StringBodySource body("x");
  absl::Status push = client.PushBlob({server_.host(), "app"}, oci::Sha256Digest("x"), body);
  EXPECT_EQ(push.code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(HtpasswdTest, AnonymousIsUnauthenticated) {
  RegistryClient client = Client();
  absl::Status ping = client.Ping(server_.host());
  EXPECT_EQ(ping.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(ping.message()), HasSubstr("authentication required"));
}

TEST(TlsIntegrationTest, UntrustedCertificateIsAClearError) {
  RegistryServer server;
  ASSERT_THAT(server.Start({.tls = true}), IsOk());
  RegistryClientOptions options = FastRetries();
  options.curl.certs_dir = server.dir() / "empty-certs.d";
  RegistryClient client(options);
  absl::Status ping = client.Ping(server.host());
  EXPECT_EQ(ping.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(ping.message()), HasSubstr("is not trusted"));
  EXPECT_THAT(std::string(ping.message()),
              HasSubstr(fmt::format("empty-certs.d/{}/ca.crt", server.host())));
}

TEST(TlsIntegrationTest, CaInCertsDirIsTrusted) {
  RegistryServer server;
  ASSERT_THAT(server.Start({.tls = true, .relative_urls = true}), IsOk());
  RegistryClientOptions options = FastRetries();
  options.curl.certs_dir = server.certs_dir();
  RegistryClient client(options);
  ASSERT_THAT(client.Ping(server.host()), IsOk());
  auto ref = ParseReference(server.host() + "/tls/app:v1");
  ASSERT_THAT(ref, IsOk());
  PushedImage image = PushImage(client, *ref);
  std::string pulled;
  ASSERT_TRUE(client
                  .FetchBlob(ref->repository, image.layer_digest, image.layer.size(),
                             [&](std::string_view c) {
                               pulled.append(c);
                               return absl::OkStatus();
                             })
                  .ok());
  EXPECT_TRUE(pulled == image.layer);
}

class CapturingSink : public base::LogSink {
 public:
  void Write(base::LogLevel, std::string_view line) override { lines.emplace_back(line); }
  std::vector<std::string> lines;
};

TEST(TlsIntegrationTest, SpeaksHttp2AndReusesTheConnection) {
  RegistryServer server;
  ASSERT_THAT(server.Start({.tls = true}), IsOk());
  RegistryClientOptions options = FastRetries();
  options.curl.certs_dir = server.certs_dir();
  RegistryClient client(options);
  CapturingSink sink;
  base::LogLevel level = base::GetLogLevel();
  base::SetLogSink(&sink);
  base::SetLogLevel(base::LogLevel::kDEBUG);
  for (int i = 0; i < 3; ++i) EXPECT_THAT(client.Ping(server.host()), IsOk());
  base::SetLogSink(nullptr);
  base::SetLogLevel(level);
  int reused = 0;
  for (const std::string& line : sink.lines) {
    EXPECT_THAT(line, HasSubstr("HTTP/2"));
    reused += line.find("reused connection") != std::string::npos;
  }
  EXPECT_EQ(sink.lines.size(), 4u);  // the scheme probe, then three pings
  EXPECT_EQ(reused, 3);
}

TEST(TlsIntegrationTest, InsecureRegistryListSkipsVerification) {
  RegistryServer server;
  ASSERT_THAT(server.Start({.tls = true}), IsOk());
  RegistryClientOptions options = FastRetries();
  options.curl.certs_dir = server.dir() / "empty-certs.d";
  options.insecure_registries = {server.host()};
  RegistryClient client(options);
  EXPECT_THAT(client.Ping(server.host()), IsOk());
}

}  // namespace
}  // namespace trainpkg::registry
