// `trainpkg jobs list|describe|logs|cancel`: jobs of the job store, from any
// process. Jobs the Vertex backend submitted are described (refreshed from
// the service when not terminal) and cancelled through the service with
// --access-token-file or $CLOUDSDK_AUTH_ACCESS_TOKEN (access_token_flags.h),
// else Application Default Credentials; their logs are in Cloud Logging, so
// `jobs logs` on one is a usage error. Job fields are shown escaped
// (job_view.h); replica logs as the programs wrote them. describe, logs and
// cancel take a job id, a unique prefix of one, or `latest`
// (job_id_resolver.h).
#ifndef TRAINPKG_SDK_CLI_JOBS_COMMAND_H_
#define TRAINPKG_SDK_CLI_JOBS_COMMAND_H_

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "sdk/cli/access_token_flags.h"
#include "sdk/cli/job_list_query.h"

namespace trainpkg::cli {

struct JobsFlags {
  std::string format = "table";   // list: table | json
  JobListQuery query;             // list --filter, --sort-by, --limit (job_list_query.h)
  bool limit_given = false;       // list: --limit was given (else the table shows a page)
  bool quiet = false;             // list -q: only the ids
  std::string id;                 // describe, logs, cancel: an id, a unique prefix, or latest
  std::string replica;            // logs --replica
  bool follow = false;            // logs -f
  AccessTokenFlags access_token;  // describe, cancel of a Vertex job; none: env, else ADC
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
// error (e.g. no such job), or 2 for `jobs logs` of a Vertex job, an
// ambiguous id prefix or a malformed --filter / --sort-by.
int RunJobsCommand(const JobsCommands& commands, const JobsFlags& flags, std::ostream& out,
                   std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_JOBS_COMMAND_H_
