#include "sdk/slurm/internal/slurm_command.h"

#include <unistd.h>

#include <cerrno>

namespace trainpkg::sdk::slurm::internal {

absl::StatusOr<CommandResult> RunSlurmCommand(
    ProcessLauncher& launcher, const std::vector<std::string>& argv,
    const std::map<std::string, std::string>& environment) {
  absl::StatusOr<std::unique_ptr<Process>> process = launcher.Start(
      ProcessSpec{.name = argv[0], .program = argv[0], .argv = argv, .env = environment});
  if (!process.ok()) return process.status();
  CommandResult result;
  char buffer[4096];
  // All output before Wait(): a command that filled the pipe would block
  // and never exit.
  for (;;) {
    ssize_t n = ::read((*process)->output_fd(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  result.exit = (*process)->Wait();
  return result;
}

}  // namespace trainpkg::sdk::slurm::internal
