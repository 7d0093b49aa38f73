// Application Default Credentials, looked up in google-cloud-cpp's order:
//   1. $GOOGLE_APPLICATION_CREDENTIALS: that file must exist and parse;
//   2. gcloud's ADC file, used when it exists:
//      $CLOUDSDK_CONFIG/application_default_credentials.json, else
//      $HOME/.config/gcloud/application_default_credentials.json;
//   3. the GCE metadata server (compute_engine_credentials.h), which is not
//      probed here: a machine off Google Cloud gets its error at the first
//      token.
// Files: "type": "service_account" (service_account_credentials.h) or
// "authorized_user" (authorized_user_credentials.h). Fetched tokens are
// cached (cached_credentials.h).
#ifndef TRAINPKG_SDK_AUTH_GOOGLE_DEFAULT_CREDENTIALS_H_
#define TRAINPKG_SDK_AUTH_GOOGLE_DEFAULT_CREDENTIALS_H_

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "http/http_transport.h"
#include "sdk/auth/credentials.h"
#include "sdk/auth/service_account_credentials.h"

namespace trainpkg::sdk::auth {

struct DefaultCredentialsOptions {
  // Not owned; nullptr means the process environment.
  const base::Environment* environment = nullptr;
  // Carries token requests (OAuth token endpoint, metadata server). Required.
  std::shared_ptr<http::HttpTransport> transport;
  // Service-account keys sign their own JWT by default, like google-cloud-cpp;
  // kOAuthJwtBearer exchanges it for an OAuth token instead (also chosen when
  // $GOOGLE_CLOUD_CPP_EXPERIMENTAL_DISABLE_SELF_SIGNED_JWT is set).
  ServiceAccountFlow service_account_flow = ServiceAccountFlow::kSelfSignedJwt;
  std::vector<std::string> scopes = {kCloudPlatformScope};
};

// The gcloud ADC file path (step 2), whether or not it exists; nullopt when
// neither CLOUDSDK_CONFIG nor HOME is set.
std::optional<std::filesystem::path> GcloudAdcFilePath(const base::Environment& env);

// Credentials from a key or ADC file. NotFound when the file does not exist,
// InvalidArgument (naming the file) when it is not JSON, has an unsupported
// "type", or misses a field.
absl::StatusOr<std::shared_ptr<Credentials>> CredentialsFromFile(
    const std::filesystem::path& path, const DefaultCredentialsOptions& options);

// The first source in the order above. Errors are those of
// CredentialsFromFile for the file chosen; the metadata server never fails
// here.
absl::StatusOr<std::shared_ptr<Credentials>> MakeGoogleDefaultCredentials(
    const DefaultCredentialsOptions& options);

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_GOOGLE_DEFAULT_CREDENTIALS_H_
