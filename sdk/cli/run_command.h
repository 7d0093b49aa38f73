// `trainpkg run`: run a CustomJob locally, on Vertex AI (--backend vertex) or
// on Kubernetes (--backend k8s),
// in the foreground or detached.
#ifndef TRAINPKG_SDK_CLI_RUN_COMMAND_H_
#define TRAINPKG_SDK_CLI_RUN_COMMAND_H_

#include <ostream>

#include "CLI/CLI.hpp"
#include "sdk/cli/backend_flags.h"
#include "sdk/cli/job_from_flags.h"

namespace trainpkg::cli {

// Declares the flags that describe the job (--config, --worker-pool-spec,
// --display-name, --base-output-dir, --args, --command, --labels, --job-id,
// and --scale-tier with its companions: sdk/cli/scale_tier_flags.h).
void AddJobSpecFlags(CLI::App& command, RunFlags& flags);

// Declares the subcommand and its flags on `app`; values land in `flags`.
CLI::App* AddRunCommand(CLI::App& app, RunFlags& flags, BackendFlags& backend);

// Runs the job the flags describe. Returns 0 SUCCEEDED, 1 FAILED, 130
// CANCELLED (Ctrl-C cancels; a second Ctrl-C kills), 2 when the flags or the
// job file are invalid and nothing ran. Must run before any other thread is
// started: it blocks SIGINT/SIGTERM, and --detach forks. With --backend
// vertex, Ctrl-C asks the service to cancel, and --detach prints the
// resource name once the job is created and returns; --backend k8s likewise
// (Ctrl-C deletes the workload).
int RunCommand(const RunFlags& flags, const BackendFlags& backend, std::ostream& out,
               std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_RUN_COMMAND_H_
