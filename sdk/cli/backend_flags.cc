#include "sdk/cli/backend_flags.h"

#include "sdk/auth/credentials.h"

namespace trainpkg::cli {

void AddBackendFlags(CLI::App& command, BackendFlags& flags) {
  command.add_option("--backend", flags.backend, "Where the job runs: local or vertex")
      ->check(CLI::IsMember({"local", "vertex"}))
      ->capture_default_str();
  command.add_option("--project", flags.project, "vertex: the Google Cloud project");
  command.add_option("--region", flags.region, "vertex: the region, e.g. us-central1");
  command.add_option("--endpoint", flags.endpoint,
                     "vertex: API endpoint (default https://REGION-aiplatform.googleapis.com; "
                     "http://127.0.0.1:PORT for `trainpkg serve`)");
  command.add_option("--access-token", flags.access_token,
                     "vertex: bearer token to use instead of Application Default Credentials");
}

absl::Status ApplyBackendFlags(const BackendFlags& flags, sdk::CustomJobOptions& options) {
  if (flags.backend != "vertex") {
    for (const auto& [name, value] :
         {std::pair{"--project", &flags.project}, std::pair{"--region", &flags.region},
          std::pair{"--endpoint", &flags.endpoint},
          std::pair{"--access-token", &flags.access_token}}) {
      if (!value->empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": only applies with --backend vertex"));
      }
    }
    options.backend = sdk::JobBackendKind::kLocal;
    return absl::OkStatus();
  }
  if (flags.project.empty()) {
    return absl::InvalidArgumentError("--project: required with --backend vertex");
  }
  if (flags.region.empty()) {
    return absl::InvalidArgumentError("--region: required with --backend vertex");
  }
  options.backend = sdk::JobBackendKind::kVertex;
  options.vertex.project = flags.project;
  options.vertex.location = flags.region;
  options.vertex.endpoint = flags.endpoint;
  if (!flags.access_token.empty()) {
    options.vertex.credentials =
        std::make_shared<sdk::auth::AccessTokenCredentials>(flags.access_token);
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::cli
