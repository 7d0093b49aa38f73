// Fuzz target: any bytes as a bearer token server's HTTP response
// (fuzz_response.h): an Authenticator with a username and password answers
// a Bearer challenge, so the response goes through the token reply parser
// (token / access_token / expires_in / refresh_token) or the error path,
// then asks for the header again. Must never crash, hang or trip a
// sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "registry/auth/authenticator.h"
#include "registry/auth/challenge.h"
#include "registry/auth/credential.h"
#include "tests/http/scripted_transport.h"
#include "tests/registry/fuzz/fuzz_response.h"
#include "tests/test_util/fake_clock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::registry;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const trainpkg::http::HttpResponse response = fuzz::ParseFuzzResponse(text);
  auto transport = std::make_shared<trainpkg::http::testing::ScriptedTransport>();
  transport->SetHandler([&](const trainpkg::http::testing::RecordedRequest&)
                            -> absl::StatusOr<trainpkg::http::HttpResponse> { return response; });
  trainpkg::testing::FakeClock clock;
  Credential credential;
  credential.username = "user";
  credential.password = "secret";
  Authenticator authenticator("registry.test", "https://registry.test",
                              std::make_shared<StaticKeychain>(credential), transport, clock);
  const std::vector<std::string> scopes = {"repository:team/app:pull"};
  (void)authenticator.Answer(
      ParseChallenges(R"(Bearer realm="https://auth.test/token",service="registry.test")"), scopes,
      std::nullopt);
  (void)authenticator.AuthorizationFor(scopes);
  return 0;
}
