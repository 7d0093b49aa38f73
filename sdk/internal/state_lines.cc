#include "sdk/internal/state_lines.h"

#include "fmt/format.h"
#include "jobspec/job_state.h"

namespace trainpkg::sdk::internal {

void WriteStateLines(LineStream* log, std::string_view name, jobspec::JobState state,
                     const std::optional<jobspec::RpcStatus>& error) {
  if (log == nullptr) return;
  log->WriteLine(
      "", fmt::format("CustomJob {} current state:\n{}", name, jobspec::JobStateName(state)));
  if (state == jobspec::JobState::kSucceeded) {
    log->WriteLine("", fmt::format("CustomJob run completed. Resource name: {}", name));
  } else if (jobspec::IsTerminal(state) && error.has_value()) {
    log->WriteLine("", fmt::format("Job failed with:\ncode: {}\nmessage: \"{}\"", error->code,
                                   error->message));
  }
}

}  // namespace trainpkg::sdk::internal
