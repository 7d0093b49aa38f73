#include "sdk/internal/restart_policy.h"

namespace trainpkg::sdk::internal {

int JobRestartBudget(const jobspec::CustomJobSpec& spec) {
  if (!spec.scheduling.has_value()) return 0;
  const jobspec::Scheduling& scheduling = *spec.scheduling;
  // Vertex: disableRetries overrides restartJobOnWorkerRestart.
  if (!scheduling.restart_job_on_worker_restart || scheduling.disable_retries) return 0;
  return kMaxJobRestarts;
}

}  // namespace trainpkg::sdk::internal
