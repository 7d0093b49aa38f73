#include "sdk/cli/exit_codes.h"

#include <ostream>

#include "base/terminal_text.h"

namespace trainpkg::cli {

int ExitCodeForState(jobspec::JobState state) {
  switch (state) {
    case jobspec::JobState::kSucceeded:
      return kExitOk;
    case jobspec::JobState::kCancelled:
      return kExitCancelled;
    default:
      return kExitFailed;
  }
}

int ReportError(std::ostream& err, const absl::Status& status, int exit_code) {
  err << "trainpkg: error: "
      << base::TerminalSafe(std::string(status.message()), base::TextLayout::kMultiLine) << '\n';
  return exit_code;
}

}  // namespace trainpkg::cli
