// Runs one Slurm client command (sbatch, scontrol, scancel) to completion
// and collects what it printed.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_COMMAND_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_COMMAND_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::slurm::internal {

struct CommandResult {
  ExitStatus exit;
  std::string output;  // stdout and stderr together
};

// `argv[0]` is looked up on `environment`'s PATH. Errors are the
// launcher's (e.g. NotFound when Slurm's commands are not installed); a
// command that runs and fails is a CommandResult with a non-zero exit.
absl::StatusOr<CommandResult> RunSlurmCommand(
    ProcessLauncher& launcher, const std::vector<std::string>& argv,
    const std::map<std::string, std::string>& environment);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_COMMAND_H_
