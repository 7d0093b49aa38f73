// When a failed replica restarts the job (scheduling.restartJobOnWorkerRestart):
// every replica is stopped and the whole job starts again, so that the
// replicas resume together from their checkpoints (BackupAndRestore). At
// most kMaxJobRestarts restarts per job; the next failure fails the job
// with the usual message naming the replica. scheduling.disableRetries
// turns restarts off, as on Vertex.
#ifndef TRAINPKG_SDK_INTERNAL_RESTART_POLICY_H_
#define TRAINPKG_SDK_INTERNAL_RESTART_POLICY_H_

#include "jobspec/custom_job.h"

namespace trainpkg::sdk::internal {

inline constexpr int kMaxJobRestarts = 3;

// How many times a job of `spec` may restart after replica failures.
int JobRestartBudget(const jobspec::CustomJobSpec& spec);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_RESTART_POLICY_H_
