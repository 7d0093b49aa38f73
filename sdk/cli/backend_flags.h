// The flags that choose where `trainpkg run` sends a job: --backend local
// (default) or --backend vertex with --project, --region, --endpoint and
// --access-token.
#ifndef TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
#define TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "sdk/custom_job.h"

namespace trainpkg::cli {

struct BackendFlags {
  std::string backend = "local";  // local | vertex
  std::string project;
  std::string region;
  std::string endpoint;      // "" : https://<region>-aiplatform.googleapis.com
  std::string access_token;  // "" : Application Default Credentials
};

// Declares the flags on `command`.
void AddBackendFlags(CLI::App& command, BackendFlags& flags);

// Sets options.backend and options.vertex. InvalidArgument naming the flag
// when --backend vertex lacks --project or --region, or when a vertex flag
// is given with --backend local.
absl::Status ApplyBackendFlags(const BackendFlags& flags, sdk::CustomJobOptions& options);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
