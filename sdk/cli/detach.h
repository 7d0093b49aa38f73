// `trainpkg run --detach`: the job runs in a background supervisor process.
#ifndef TRAINPKG_SDK_CLI_DETACH_H_
#define TRAINPKG_SDK_CLI_DETACH_H_

#include <ostream>

#include "sdk/custom_job.h"

namespace trainpkg::cli {

// Forks a supervisor that starts a new session (setsid), reads stdin from
// /dev/null, submits `job`, reports back, then writes its own diagnostics
// to <job dir>/supervisor.log, cancels on SIGTERM and exits when the job
// ends. This process waits only for the report: on success it prints the
// job id and the commands to follow it and returns 0; a submit error is
// printed and returns 2. REQUIRES: no thread was started in this process
// (fork keeps only the calling thread), and `job` was created with no log
// stream.
int RunDetached(sdk::CustomJob job, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_DETACH_H_
