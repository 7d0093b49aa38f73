// Fuzz target: any bytes as a registry's HTTP response (fuzz_response.h)
// through what reads one: the error body and code (StatusFromResponse),
// Retry-After (ParseRetryAfter), an upload session's Range
// (UploadedBytes), Location (UrlAuthority, ResolveUrl), and a tag list with
// Link pagination (RegistryClient::ListTags against a scripted server that
// answers with this response three times, then with an empty last page).
// Must never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "http/retry_transport.h"
#include "http/url.h"
#include "registry/internal/upload_range.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "registry/registry_error.h"
#include "tests/http/scripted_transport.h"
#include "tests/registry/fuzz/fuzz_response.h"
#include "tests/test_util/fake_clock.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::registry;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const trainpkg::http::HttpResponse response = fuzz::ParseFuzzResponse(text);

  absl::Status status = StatusFromResponse(response, "fuzzing");
  (void)RegistryErrorCode(status);
  (void)RetryAfterHeader(status);
  const absl::Time now = absl::FromUnixSeconds(1800000000);
  for (const std::string& value : response.headers.GetAll("Retry-After")) {
    (void)trainpkg::http::ParseRetryAfter(value, now);
  }
  (void)internal::UploadedBytes(response.headers.Get("Range"));
  for (const std::string& location : response.headers.GetAll("Location")) {
    (void)trainpkg::http::UrlAuthority(location);
    std::string resolved =
        trainpkg::http::ResolveUrl("https://registry.test/v2/a/blobs/uploads/x?state=1", location);
    (void)trainpkg::http::UrlAuthority(resolved);
    (void)trainpkg::http::UrlForDisplay(resolved);
  }

  auto transport = std::make_shared<trainpkg::http::testing::ScriptedTransport>();
  int answered = 0;
  transport->SetHandler([&](const trainpkg::http::testing::RecordedRequest&)
                            -> absl::StatusOr<trainpkg::http::HttpResponse> {
    if (++answered <= 3) return response;
    return trainpkg::http::testing::Response(200, R"({"tags":[]})");
  });
  trainpkg::testing::FakeClock clock;
  RegistryClientOptions options;
  options.transport = transport;
  options.clock = &clock;
  options.retry.max_attempts = 1;
  RegistryClient client(options);
  absl::StatusOr<Repository> repo = ParseRepository("registry.test/team/app");
  if (repo.ok()) (void)client.ListTags(*repo);
  return 0;
}
