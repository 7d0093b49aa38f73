// Fuzz target: any bytes as an Application Default Credentials file
// ($GOOGLE_APPLICATION_CREDENTIALS: service_account or authorized_user
// JSON), loaded and asked for a token. The token endpoint is a scripted
// server refusing with an OAuth error, so no request leaves the process; a
// service-account key signs its own JWT (OpenSSL reads the PEM). The text
// @@TEST_KEY@@ in the input stands for a key made once per run (PEM, JSON
// escaped), so seeds reach the signing path without a key in the repo.
// Must never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "base/check.h"
#include "base/environment.h"
#include "nlohmann/json.hpp"
#include "openssl/evp.h"
#include "openssl/pem.h"
#include "sdk/auth/google_default_credentials.h"
#include "tests/fuzz/fuzz_scratch.h"
#include "tests/http/scripted_transport.h"

namespace {

// A 2048-bit RSA key as PEM inside a JSON string (quotes excluded).
const std::string& TestKeyJson() {
  static const std::string* key = [] {
    EVP_PKEY* raw = EVP_RSA_gen(2048);
    TP_CHECK(raw != nullptr, "EVP_RSA_gen");
    BIO* bio = BIO_new(BIO_s_mem());
    TP_CHECK(PEM_write_bio_PrivateKey(bio, raw, nullptr, nullptr, 0, nullptr, nullptr) == 1,
             "PEM_write_bio_PrivateKey");
    char* pem = nullptr;
    long length = BIO_get_mem_data(bio, &pem);
    std::string quoted = nlohmann::json(std::string(pem, static_cast<size_t>(length))).dump();
    BIO_free(bio);
    EVP_PKEY_free(raw);
    return new std::string(quoted.substr(1, quoted.size() - 2));
  }();
  return *key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string text(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kPlaceholder = "@@TEST_KEY@@";
  for (size_t at = text.find(kPlaceholder); at != std::string::npos;
       at = text.find(kPlaceholder, at + TestKeyJson().size())) {
    text.replace(at, kPlaceholder.size(), TestKeyJson());
  }
  base::TempDir dir = fuzz::ScratchDir();
  const auto path = dir.path() / "adc.json";
  fuzz::WriteScratchFile(path, text);
  auto transport = std::make_shared<http::testing::ScriptedTransport>();
  transport->SetHandler([](const http::testing::RecordedRequest&) {
    return absl::StatusOr<http::HttpResponse>(http::testing::Response(
        400, R"({"error":"invalid_grant","error_description":"Bad Request"})"));
  });
  base::MapEnvironment env({{"GOOGLE_APPLICATION_CREDENTIALS", path.string()},
                            {"HOME", dir.path().string()}});
  sdk::auth::DefaultCredentialsOptions options;
  options.environment = &env;
  options.transport = transport;
  for (auto flow : {sdk::auth::ServiceAccountFlow::kSelfSignedJwt,
                    sdk::auth::ServiceAccountFlow::kOAuthJwtBearer}) {
    options.service_account_flow = flow;
    absl::StatusOr<std::shared_ptr<sdk::auth::Credentials>> credentials =
        sdk::auth::MakeGoogleDefaultCredentials(options);
    if (!credentials.ok()) return 0;
    (void)(*credentials)->Describe();
    (void)(*credentials)->GetToken(absl::FromUnixSeconds(1800000000));
  }
  return 0;
}
