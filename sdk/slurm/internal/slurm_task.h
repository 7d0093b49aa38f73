// The task launcher srun starts for each replica of a Slurm job (the
// trainpkg-slurm-task program): it finds which replica it is (pool from
// TRAINPKG_SLURM_POOL, index from SLURM_PROCID, the task's rank in its
// pool's step), picks a free port on its node, meets the other replicas
// (peer_rendezvous.h), builds the environment Vertex would inject
// (CLUSTER_SPEC, TF_CONFIG, AIP_*, CLOUD_ML_*; then containerSpec.env) and
// runs the replica's executable as its child, forwarding signals. When the
// child ends it writes the replica's exit record and exits the same way.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_TASK_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_TASK_H_

#include <filesystem>
#include <map>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/cluster_env.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::slurm::internal {

struct SlurmTaskOptions {
  std::filesystem::path job_dir;
  absl::Duration rendezvous_timeout = absl::Minutes(5);
};

// Which replica this task is: pool from TRAINPKG_SLURM_POOL, index from
// SLURM_PROCID. InvalidArgument naming a missing or malformed variable.
absl::StatusOr<jobspec::ReplicaRef> ReplicaFromSlurmEnv(
    const std::map<std::string, std::string>& environment);

// The replica's process: name "workerpool1-0", its program, argv and
// complete environment (`environment` plus the cluster env). Errors name the
// variable or file that was wrong; DeadlineExceeded from the rendezvous.
absl::StatusOr<ProcessSpec> PrepareSlurmTask(const std::map<std::string, std::string>& environment,
                                             const SlurmTaskOptions& options);

// Runs `spec` as a child (stdin, stdout and stderr inherited), forwarding
// SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGCONT to it, and
// records how it ended in `exits_dir`. Returns the exit code for this
// process: the child's, or 128 + its signal. REQUIRES: single-threaded.
int RunReplica(const ProcessSpec& spec, const std::filesystem::path& exits_dir, std::ostream& err);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_TASK_H_
