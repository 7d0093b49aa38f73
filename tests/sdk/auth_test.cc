// Application Default Credentials: JWT signing (verified with OpenSSL
// against a key generated here), the lookup order, the token exchanges
// against a scripted transport, and the token cache.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sdk/auth/authorized_user_credentials.h"
#include "sdk/auth/cached_credentials.h"
#include "sdk/auth/google_default_credentials.h"
#include "sdk/auth/jwt.h"
#include "sdk/auth/service_account_credentials.h"
#include "tests/http/scripted_transport.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::auth {
namespace {

using http::testing::Response;
using http::testing::ScriptedTransport;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

// An RSA key generated for the test, as PEM private key and the EVP_PKEY.
struct TestKey {
  std::shared_ptr<EVP_PKEY> key;
  std::string private_pem;
};

TestKey GenerateKey() {
  EVP_PKEY* raw = EVP_RSA_gen(2048);
  EXPECT_NE(raw, nullptr);
  std::shared_ptr<EVP_PKEY> key(raw, EVP_PKEY_free);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, raw, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return {key, pem};
}

const TestKey& Key() {
  static const TestKey* key = new TestKey(GenerateKey());
  return *key;
}

std::string Decode(const std::string& part) {
  std::string out;
  EXPECT_TRUE(absl::WebSafeBase64Unescape(part, &out)) << part;
  return out;
}

// Verifies the RS256 signature of `jwt` with the test key's public half and
// returns {header, payload}.
std::pair<nlohmann::json, nlohmann::json> VerifyJwt(const std::string& jwt) {
  std::vector<std::string> parts = absl::StrSplit(jwt, '.');
  EXPECT_EQ(parts.size(), 3u);
  if (parts.size() != 3) return {};
  std::string input = parts[0] + "." + parts[1];
  std::string signature = Decode(parts[2]);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EXPECT_EQ(EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, Key().key.get()), 1);
  int verified = EVP_DigestVerify(
      ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
      reinterpret_cast<const unsigned char*>(input.data()), input.size());
  EVP_MD_CTX_free(ctx);
  EXPECT_EQ(verified, 1) << "signature does not verify";
  return {nlohmann::json::parse(Decode(parts[0])), nlohmann::json::parse(Decode(parts[1]))};
}

nlohmann::json ServiceAccountJson() {
  return {{"type", "service_account"},
          {"project_id", "proj"},
          {"private_key_id", "kid123"},
          {"private_key", Key().private_pem},
          {"client_email", "sa@proj.iam.gserviceaccount.com"},
          {"token_uri", "https://oauth2.example/token"}};
}

nlohmann::json AuthorizedUserJson() {
  return {{"type", "authorized_user"},
          {"client_id", "cid"},
          {"client_secret", "csecret"},
          {"refresh_token", "rtoken/with+special"}};
}

TEST(JwtTest, SignatureVerifiesWithThePublicKeyAndTamperingBreaksIt) {
  absl::StatusOr<std::string> jwt =
      MakeRs256Jwt({{"alg", "RS256"}, {"typ", "JWT"}}, {{"iss", "me"}}, Key().private_pem);
  ASSERT_THAT(jwt, IsOk());
  EXPECT_THAT(*jwt, Not(HasSubstr("=")));
  auto [header, payload] = VerifyJwt(*jwt);
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(payload["iss"], "me");

  // A changed payload no longer matches the signature.
  std::vector<std::string> parts = absl::StrSplit(*jwt, '.');
  std::string forged = parts[0] + "." + Base64UrlEncode(R"({"iss":"you"})");
  std::string signature = Decode(parts[2]);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, Key().key.get());
  EXPECT_NE(EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(),
                             reinterpret_cast<const unsigned char*>(forged.data()), forged.size()),
            1);
  EVP_MD_CTX_free(ctx);
}

TEST(JwtTest, RejectsAKeyThatIsNotPemWithoutEchoingIt) {
  absl::StatusOr<std::string> jwt = MakeRs256Jwt({}, {}, "secret-not-a-key");
  EXPECT_EQ(jwt.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(jwt.status().message(), Not(HasSubstr("secret-not-a-key")));
}

TEST(ServiceAccountCredentialsTest, SelfSignedJwtIsTheBearerToken) {
  absl::StatusOr<ServiceAccountKey> key = ServiceAccountKeyFromJson(ServiceAccountJson(), "k.json");
  ASSERT_THAT(key, IsOk());
  ServiceAccountCredentials credentials(*key, ServiceAccountFlow::kSelfSignedJwt, nullptr);
  absl::StatusOr<AccessToken> token = credentials.GetToken(kNow);
  ASSERT_THAT(token, IsOk());
  EXPECT_EQ(token->expiration, kNow + absl::Seconds(3600));
  auto [header, payload] = VerifyJwt(token->token);
  EXPECT_EQ(header, nlohmann::json({{"alg", "RS256"}, {"typ", "JWT"}, {"kid", "kid123"}}));
  EXPECT_EQ(payload["iss"], "sa@proj.iam.gserviceaccount.com");
  EXPECT_EQ(payload["sub"], "sa@proj.iam.gserviceaccount.com");
  EXPECT_EQ(payload["iat"], 1800000000);
  EXPECT_EQ(payload["exp"], 1800003600);
  EXPECT_EQ(payload["scope"], kCloudPlatformScope);
}

TEST(ServiceAccountCredentialsTest, OAuthFlowPostsASignedAssertion) {
  auto transport = std::make_shared<ScriptedTransport>();
  transport->Push(
      Response(200, R"({"access_token":"ya29.x","expires_in":3599,"token_type":"Bearer"})"));
  ServiceAccountCredentials credentials(*ServiceAccountKeyFromJson(ServiceAccountJson(), "k"),
                                        ServiceAccountFlow::kOAuthJwtBearer, transport);
  absl::StatusOr<AccessToken> token = credentials.GetToken(kNow);
  ASSERT_THAT(token, IsOk());
  EXPECT_EQ(token->token, "ya29.x");
  EXPECT_EQ(token->expiration, kNow + absl::Seconds(3599));
  ASSERT_EQ(transport->requests().size(), 1u);
  const auto& request = transport->requests()[0];
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.url, "https://oauth2.example/token");
  EXPECT_EQ(request.headers.Get("Content-Type"), "application/x-www-form-urlencoded");
  const std::string prefix =
      "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";
  ASSERT_EQ(request.body.rfind(prefix, 0), 0u) << request.body;
  auto [header, payload] = VerifyJwt(request.body.substr(prefix.size()));
  EXPECT_EQ(payload["aud"], "https://oauth2.example/token");
  EXPECT_FALSE(payload.contains("sub"));
}

TEST(AuthorizedUserCredentialsTest, RefreshPostsTheFormAndReadsTheToken) {
  auto transport = std::make_shared<ScriptedTransport>();
  transport->Push(Response(
      200, R"({"access_token":"ya29.user","expires_in":3600,"token_type":"Bearer","scope":"x"})"));
  AuthorizedUserCredentials credentials(*AuthorizedUserFromJson(AuthorizedUserJson(), "adc"),
                                        transport);
  absl::StatusOr<AccessToken> token = credentials.GetToken(kNow);
  ASSERT_THAT(token, IsOk());
  EXPECT_EQ(token->token, "ya29.user");
  const auto& request = transport->requests().at(0);
  EXPECT_EQ(request.url, "https://oauth2.googleapis.com/token");
  EXPECT_EQ(request.body,
            "grant_type=refresh_token&client_id=cid&client_secret=csecret&refresh_token=rtoken%"
            "2Fwith%2Bspecial");
}

TEST(AuthorizedUserCredentialsTest, RefusedRefreshIsUnauthenticatedWithoutSecrets) {
  auto transport = std::make_shared<ScriptedTransport>();
  transport->Push(Response(
      400,
      R"({"error":"invalid_grant","error_description":"Token has been expired or revoked."})"));
  AuthorizedUserCredentials credentials(*AuthorizedUserFromJson(AuthorizedUserJson(), "adc"),
                                        transport);
  absl::StatusOr<AccessToken> token = credentials.GetToken(kNow);
  EXPECT_EQ(token.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(token.status().message(), HasSubstr("invalid_grant: Token has been expired"));
  EXPECT_THAT(token.status().message(), Not(HasSubstr("csecret")));
  EXPECT_THAT(token.status().message(), Not(HasSubstr("rtoken")));
}

TEST(AuthorizedUserCredentialsTest, MissingFieldIsNamed) {
  nlohmann::json json = AuthorizedUserJson();
  json.erase("refresh_token");
  EXPECT_THAT(AuthorizedUserFromJson(json, "adc.json").status().message(),
              HasSubstr("adc.json: authorized_user credentials have no \"refresh_token\""));
}

class CountingCredentials : public Credentials {
 public:
  absl::StatusOr<AccessToken> GetToken(absl::Time now) override {
    ++calls;
    return AccessToken{"t" + std::to_string(calls), now + absl::Seconds(3600)};
  }
  std::string Describe() const override { return "counting"; }
  int calls = 0;
};

TEST(CachedCredentialsTest, RefreshesOnlyWithinTheSlackBeforeExpiry) {
  auto inner = std::make_shared<CountingCredentials>();
  CachedCredentials cached(inner);
  EXPECT_EQ(cached.GetToken(kNow)->token, "t1");
  EXPECT_EQ(cached.GetToken(kNow + absl::Seconds(3299))->token, "t1");
  EXPECT_EQ(cached.GetToken(kNow + absl::Seconds(3300))->token, "t2");
  EXPECT_EQ(inner->calls, 2);
}

// The ADC lookup order, with a MapEnvironment and files in a temp dir.
class DefaultCredentialsTest : public ::testing::Test {
 protected:
  std::filesystem::path Write(const std::string& relative, const nlohmann::json& json) {
    std::filesystem::path path = dir_.path() / relative;
    std::filesystem::create_directories(path.parent_path());
    EXPECT_THAT(base::WriteFileAtomic(path, json.dump()), IsOk());
    return path;
  }
  std::string Describe() {
    absl::StatusOr<std::shared_ptr<Credentials>> credentials =
        MakeGoogleDefaultCredentials({.environment = &env_, .transport = transport_});
    EXPECT_THAT(credentials, IsOk());
    return credentials.ok() ? (*credentials)->Describe() : "";
  }

  testing::TempDir dir_;
  base::MapEnvironment env_;
  std::shared_ptr<ScriptedTransport> transport_ = std::make_shared<ScriptedTransport>();
};

TEST_F(DefaultCredentialsTest, EnvironmentVariableFileComesFirst) {
  env_.Set("GOOGLE_APPLICATION_CREDENTIALS", Write("key.json", ServiceAccountJson()).string());
  env_.Set("HOME", dir_.path().string());
  Write(".config/gcloud/application_default_credentials.json", AuthorizedUserJson());
  EXPECT_EQ(Describe(), "service account sa@proj.iam.gserviceaccount.com");
}

TEST_F(DefaultCredentialsTest, EnvironmentVariableNamingAMissingFileFails) {
  env_.Set("GOOGLE_APPLICATION_CREDENTIALS", (dir_.path() / "missing.json").string());
  env_.Set("HOME", dir_.path().string());
  Write(".config/gcloud/application_default_credentials.json", AuthorizedUserJson());
  absl::StatusOr<std::shared_ptr<Credentials>> credentials =
      MakeGoogleDefaultCredentials({.environment = &env_, .transport = transport_});
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(credentials.status().message(), HasSubstr("GOOGLE_APPLICATION_CREDENTIALS"));
}

TEST_F(DefaultCredentialsTest, GcloudFileUnderHomeThenCloudsdkConfig) {
  env_.Set("HOME", dir_.path().string());
  Write(".config/gcloud/application_default_credentials.json", AuthorizedUserJson());
  EXPECT_EQ(Describe(), "gcloud user credentials");
  env_.Set("CLOUDSDK_CONFIG", (dir_.path() / "other").string());
  Write("other/application_default_credentials.json", ServiceAccountJson());
  EXPECT_EQ(Describe(), "service account sa@proj.iam.gserviceaccount.com");
}

TEST_F(DefaultCredentialsTest, UnknownTypeIsNamed) {
  env_.Set("GOOGLE_APPLICATION_CREDENTIALS",
           Write("ext.json", {{"type", "external_account"}}).string());
  absl::StatusOr<std::shared_ptr<Credentials>> credentials =
      MakeGoogleDefaultCredentials({.environment = &env_, .transport = transport_});
  EXPECT_EQ(credentials.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(credentials.status().message(), HasSubstr("\"external_account\""));
}

TEST_F(DefaultCredentialsTest, MetadataServerLastWithItsFlavorHeaderAndCaching) {
  env_.Set("HOME", dir_.path().string());  // no ADC file there
  env_.Set("GCE_METADATA_HOST", "127.0.0.1:9");
  transport_->Push(
      Response(200, R"({"access_token":"ya29.gce","expires_in":1800,"token_type":"Bearer"})"));
  absl::StatusOr<std::shared_ptr<Credentials>> credentials =
      MakeGoogleDefaultCredentials({.environment = &env_, .transport = transport_});
  ASSERT_THAT(credentials, IsOk());
  EXPECT_EQ((*credentials)->GetToken(kNow)->token, "ya29.gce");
  EXPECT_EQ((*credentials)->GetToken(kNow + absl::Seconds(60))->token, "ya29.gce");
  ASSERT_EQ(transport_->requests().size(), 1u);
  EXPECT_EQ(transport_->requests()[0].url,
            "http://127.0.0.1:9/computeMetadata/v1/instance/service-accounts/default/token");
  EXPECT_EQ(transport_->requests()[0].headers.Get("Metadata-Flavor"), "Google");
}

TEST_F(DefaultCredentialsTest, UnreachableMetadataServerNamesTheOtherSources) {
  env_.Set("HOME", dir_.path().string());
  transport_->Push(absl::UnavailableError("connect failed"));
  absl::StatusOr<std::shared_ptr<Credentials>> credentials =
      MakeGoogleDefaultCredentials({.environment = &env_, .transport = transport_});
  ASSERT_THAT(credentials, IsOk());
  absl::StatusOr<AccessToken> token = (*credentials)->GetToken(kNow);
  EXPECT_EQ(token.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(token.status().message(), HasSubstr("gcloud auth application-default login"));
  EXPECT_THAT(token.status().message(), HasSubstr("metadata.google.internal"));
}

}  // namespace
}  // namespace trainpkg::sdk::auth
