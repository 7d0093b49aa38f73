// ClusterInfo from the variables srun sets for each task of a job step
// (what TensorFlow's SlurmClusterResolver reads): SLURM_PROCID,
// SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST and SLURM_STEP_TASKS_PER_NODE.
//
// Tasks are laid out in Slurm's default block distribution: ranks fill the
// nodes in SLURM_STEP_NODELIST order, SLURM_STEP_TASKS_PER_NODE at a time.
// The task with local index l on host h listens on h:(kSlurmPortBase + l).
// Every task is a "worker" with task_index = rank; rank 0 is the chief.
#ifndef TRAINPKG_TRAINER_RUNTIME_SLURM_RESOLVER_H_
#define TRAINPKG_TRAINER_RUNTIME_SLURM_RESOLVER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "trainer_runtime/cluster_info.h"

namespace trainpkg::runtime {

// TensorFlow's SlurmClusterResolver default.
inline constexpr int kSlurmPortBase = 8888;

// nullopt when SLURM_PROCID is unset or empty. trial_id is
// CLOUD_ML_TRIAL_ID. InvalidArgument naming the variable when a step
// variable is missing (not inside an srun step) or malformed, the node and
// task-count lists differ in length, their total is not
// SLURM_STEP_NUM_TASKS, or SLURM_PROCID is not below it.
absl::StatusOr<std::optional<ClusterInfo>> ResolveFromSlurm(const base::Environment& env);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_SLURM_RESOLVER_H_
