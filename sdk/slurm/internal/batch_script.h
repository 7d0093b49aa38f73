// The sbatch script of a job, and one srun step per non-empty worker pool,
// all started at once. When every pool's tasks ask for the same resources
// (slurm_resources.h: same machineSpec, disk, timeout) the job is one plain
// job of all the tasks, each step taking its share (--exact --ntasks=<n> and
// the per-task options); otherwise each pool is a component of a
// heterogeneous job and its step runs there (--het-group=<k>). The plain
// job is preferred because Slurm gives each component of a heterogeneous
// job nodes of its own: a 2-pool job never starts on a 1-node cluster as a
// heterogeneous job, and needs at least as many nodes as pools
// (docs/adr/2026-11-24-slurm-backend.md).
//
//   srun [--het-group=<k> | --exact --ntasks=<n> ...] --kill-on-bad-exit=1
//        --export=ALL,TRAINPKG_SLURM_POOL=<pool>
//        --output=<job dir>/logs/workerpool<pool>-%t.log <task program> <job dir> ...
//
// The script waits for the steps of pools 0, 1 and 3. When one of them
// fails (or a parameter server's step ends with an error), it stops the
// others (SIGTERM through srun) and exits 1; when all succeed it stops the
// parameter servers and exits 0. Needs bash >= 5.1 (wait -n -p) on the
// first node of the allocation.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_BATCH_SCRIPT_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_BATCH_SCRIPT_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/shell_quote.h"
#include "jobspec/custom_job.h"
#include "sdk/slurm/internal/slurm_job_files.h"
#include "sdk/slurm/slurm_backend_options.h"

namespace trainpkg::sdk::slurm::internal {

// The environment variable naming a replica's worker pool; Slurm has no
// per-task "component index" variable.
inline constexpr char kPoolVariable[] = "TRAINPKG_SLURM_POOL";

struct BatchScriptRequest {
  std::string job_id;  // ours; the Slurm job is named "trainpkg-<job_id>"
  jobspec::CustomJobSpec spec;
  SlurmJobFiles files;
  std::filesystem::path task_program;  // absolute
  const SlurmBackendOptions* options = nullptr;
  // How long stopped steps get between SIGTERM and the script's exit (after
  // which Slurm kills what is left).
  absl::Duration grace_period = absl::Seconds(10);
};

// InvalidArgument naming the field when a pool's resources cannot be
// mapped (slurm_resources.h).
absl::StatusOr<std::string> MakeBatchScript(const BatchScriptRequest& request);

// `salloc <options of component 0> [: <options of component 1> ...]
// /bin/bash <script>`: the allocation the script's #SBATCH lines ask for,
// on salloc's command line (SlurmSubmit::kSalloc), without --output (the
// caller sends salloc's output to the batch log).
absl::StatusOr<std::vector<std::string>> SallocArguments(const BatchScriptRequest& request);

using base::ShellQuote;

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_BATCH_SCRIPT_H_
