#include "sdk/auth/compute_engine_credentials.h"

#include "fmt/format.h"
#include "sdk/auth/internal/token_response.h"

namespace trainpkg::sdk::auth {

std::string MetadataServerHost(const base::Environment& env) {
  // The overrides Google's client libraries read (GCE_METADATA_ROOT is
  // google-cloud-cpp's), for emulators and tests.
  for (const char* name : {"GCE_METADATA_HOST", "GCE_METADATA_ROOT"}) {
    if (std::optional<std::string> host = env.Get(name); host.has_value() && !host->empty()) {
      return *host;
    }
  }
  return "metadata.google.internal";
}

std::string ComputeEngineCredentials::Describe() const {
  return fmt::format("the metadata server at {}", host_);
}

absl::StatusOr<AccessToken> ComputeEngineCredentials::GetToken(absl::Time now) {
  std::string url =
      fmt::format("http://{}/computeMetadata/v1/instance/service-accounts/default/token", host_);
  http::HttpRequest request = http::MakeRequest("GET", url, /*idempotent=*/true);
  // The metadata server answers only requests that carry this header.
  request.headers.Set("Metadata-Flavor", "Google");
  absl::StatusOr<http::HttpResponse> response = transport_->Send(request);
  if (!response.ok()) {
    return absl::UnavailableError(fmt::format(
        "no Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS is not set, gcloud's "
        "ADC file does not exist, and {} did not answer ({}). Run `gcloud auth "
        "application-default login`, set GOOGLE_APPLICATION_CREDENTIALS to a key file, or pass "
        "an access token",
        Describe(), std::string(response.status().message())));
  }
  return internal::ParseTokenResponse(*response, now, fmt::format("fetching a token from {}", url));
}

}  // namespace trainpkg::sdk::auth
