// `trainpkg run`: run a CustomJob locally, in the foreground or detached.
#ifndef TRAINPKG_SDK_CLI_RUN_COMMAND_H_
#define TRAINPKG_SDK_CLI_RUN_COMMAND_H_

#include <ostream>

#include "CLI/CLI.hpp"
#include "sdk/cli/job_from_flags.h"

namespace trainpkg::cli {

// Declares the subcommand and its flags on `app`; values land in `flags`.
CLI::App* AddRunCommand(CLI::App& app, RunFlags& flags);

// Runs the job the flags describe. Returns 0 SUCCEEDED, 1 FAILED, 130
// CANCELLED (Ctrl-C cancels; a second Ctrl-C kills), 2 when the flags or the
// job file are invalid and nothing ran. Must run before any other thread is
// started: it blocks SIGINT/SIGTERM, and --detach forks.
int RunCommand(const RunFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_RUN_COMMAND_H_
