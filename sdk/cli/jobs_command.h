// `trainpkg jobs list|describe|logs|cancel`: local jobs, from any process.
#ifndef TRAINPKG_SDK_CLI_JOBS_COMMAND_H_
#define TRAINPKG_SDK_CLI_JOBS_COMMAND_H_

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

struct JobsFlags {
  std::string format = "table";  // list: table | json
  std::string id;                // describe, logs, cancel
  std::string replica;           // logs --replica
  bool follow = false;           // logs -f
};

struct JobsCommands {
  CLI::App* jobs = nullptr;
  CLI::App* list = nullptr;
  CLI::App* describe = nullptr;
  CLI::App* logs = nullptr;
  CLI::App* cancel = nullptr;
};

// Declares `jobs` and its subcommands on `app`; values land in `flags`.
JobsCommands AddJobsCommands(CLI::App& app, JobsFlags& flags);

// Runs whichever subcommand was parsed. Returns 0, or 1 after printing an
// error (e.g. no such job).
int RunJobsCommand(const JobsCommands& commands, const JobsFlags& flags, std::ostream& out,
                   std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_JOBS_COMMAND_H_
