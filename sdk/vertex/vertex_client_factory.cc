#include "sdk/vertex/vertex_client_factory.h"

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "http/curl_transport.h"
#include "http/retry_transport.h"
#include "sdk/auth/credentials.h"
#include "sdk/auth/google_default_credentials.h"
#include "sdk/job_store.h"
#include "sdk/vertex/local_serve_token.h"
#include "sdk/vertex/vertex_resource_ids.h"

namespace trainpkg::sdk::vertex {

std::shared_ptr<http::HttpTransport> MakeDefaultVertexTransport() {
  std::shared_ptr<http::HttpTransport> curl = http::MakeCurlTransport(http::CurlTransportOptions{});
  return std::make_shared<http::RetryTransport>(std::move(curl), http::RetryPolicy{},
                                                base::RealClock());
}

absl::StatusOr<std::shared_ptr<auth::Credentials>> LocalServeCredentials(
    std::string_view endpoint, const base::Environment& env) {
  std::optional<LoopbackEndpoint> local = ParseLoopbackEndpoint(endpoint);
  // A loopback endpoint is a `trainpkg serve`, which checks its own token:
  // the user's Google credentials are never sent to it.
  if (!local.has_value()) return std::shared_ptr<auth::Credentials>();
  TP_ASSIGN_OR_RETURN(std::filesystem::path home, DefaultJobStoreHome(env));
  absl::StatusOr<std::string> token = ReadLocalServeToken(home, *local);
  if (!token.ok()) {
    return absl::Status(
        token.status().code(),
        fmt::format("vertex backend: endpoint {} is a local `trainpkg serve`, which "
                    "needs its token: {}; or give the token explicitly as the "
                    "access token",
                    endpoint, std::string(token.status().message())));
  }
  return std::make_shared<auth::AccessTokenCredentials>(*std::move(token));
}

absl::StatusOr<std::shared_ptr<VertexClient>> MakeVertexClient(const VertexBackendOptions& options,
                                                               const base::Environment& env) {
  if (options.project.empty()) {
    return absl::InvalidArgumentError("vertex backend: the project is required");
  }
  if (options.location.empty()) {
    return absl::InvalidArgumentError("vertex backend: the location (region) is required");
  }
  if (absl::Status status = ValidateVertexProject(options.project); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("vertex backend: project ", status.message()));
  }
  if (absl::Status status = ValidateVertexLocation(options.location); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("vertex backend: location ", status.message()));
  }
  std::shared_ptr<http::HttpTransport> transport =
      options.transport != nullptr ? options.transport : MakeDefaultVertexTransport();
  std::shared_ptr<auth::Credentials> credentials = options.credentials;
  if (credentials == nullptr) {
    TP_ASSIGN_OR_RETURN(credentials, LocalServeCredentials(options.endpoint, env));
  }
  if (credentials == nullptr) {
    TP_ASSIGN_OR_RETURN(credentials, auth::MakeGoogleDefaultCredentials(
                                         {.environment = &env, .transport = transport}));
  }
  return std::make_shared<VertexClient>(VertexClientOptions{
      .endpoint = options.endpoint.empty() ? VertexEndpointFor(options.location) : options.endpoint,
      .transport = std::move(transport),
      .credentials = std::move(credentials),
      .clock = nullptr});
}

}  // namespace trainpkg::sdk::vertex
