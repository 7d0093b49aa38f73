// A real single-host Slurm cluster for the integration tests: munged on its
// own socket and key, slurmctld and two slurmd (node names n1 and n2, one
// per worker pool of a heterogeneous job) on free 127.0.0.1 ports, all state,
// spool, pid and log files in a fresh temporary directory. SLURM_CONF is set
// in this process's environment so Slurm's commands (and the backend) reach
// this cluster. Daemons are stopped by pid.
#ifndef TRAINPKG_TESTS_SDK_SLURM_SLURM_CLUSTER_H_
#define TRAINPKG_TESTS_SDK_SLURM_SLURM_CLUSTER_H_

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::sdk::testing {

struct SlurmClusterOptions {
  int cpus_per_node = 16;  // what each slurmd claims (config_overrides), not real cores
  int memory_mib_per_node = 65536;
  // slurm.conf SchedulerParameters; "" leaves the line out (Slurm's
  // defaults: bf_interval=30, batch_sched_delay=3). bf_interval=1 lets the
  // backfill pass start a batch job within a second of its submission
  // instead of the main scheduler after up to batch_sched_delay; srun and
  // salloc allocations are scheduled inside their request either way.
  std::string scheduler_parameters = "bf_interval=1";
};

class SlurmCluster {
 public:
  SlurmCluster() = default;
  ~SlurmCluster();  // Stop()
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  // "" when munged, slurmctld, slurmd, sbatch, srun, scontrol and scancel
  // are all installed; else which are missing (the tests skip then).
  static std::string MissingBinaries();

  // Starts the daemons and waits (30 s at most) until both nodes are idle.
  absl::Status Start(const SlurmClusterOptions& options = {});
  // Cancels every job and waits (15 s at most) for the queue to empty, then
  // SIGTERM to each daemon, SIGKILL after 5 s; SIGKILL to any slurmstepd
  // of this cluster still there (found by its SLURM_CONF); removes the
  // directory.
  void Stop();

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path conf() const { return dir_ / "slurm.conf"; }
  // Runs a Slurm command (argv[0] found on the system PATH) against this
  // cluster; its stdout. Internal with stderr when it fails.
  absl::StatusOr<std::string> Run(const std::vector<std::string>& argv) const;
  // The daemons' logs, for failure messages.
  std::string Logs() const;

 private:
  void KillLeftoverStepDaemons() const;
  absl::StatusOr<pid_t> Spawn(const std::string& name, const std::vector<std::string>& argv);

  std::filesystem::path dir_;
  std::vector<pid_t> pids_;  // in start order; stopped in reverse
};

}  // namespace trainpkg::sdk::testing

#endif  // TRAINPKG_TESTS_SDK_SLURM_SLURM_CLUSTER_H_
