// Exit codes of the trainpkg command.
#ifndef TRAINPKG_SDK_CLI_EXIT_CODES_H_
#define TRAINPKG_SDK_CLI_EXIT_CODES_H_

#include <iosfwd>

#include "absl/status/status.h"
#include "jobspec/job_state.h"

namespace trainpkg::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // the job FAILED, or a command failed
inline constexpr int kExitUsage = 2;        // invalid flags or job file; nothing ran
inline constexpr int kExitCancelled = 130;  // the job was CANCELLED (128 + SIGINT)

// 0 SUCCEEDED, 130 CANCELLED, 1 otherwise.
int ExitCodeForState(jobspec::JobState state);

// Prints "trainpkg: error: <message>" to `err` and returns `exit_code`. The
// message may quote a job's fields: it goes through base::TerminalSafe
// (multi-line).
int ReportError(std::ostream& err, const absl::Status& status, int exit_code);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_EXIT_CODES_H_
