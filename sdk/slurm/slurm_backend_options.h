// Where the Slurm backend of sdk::CustomJob sends a job and how it watches it
// (docs/adr/2026-11-24-slurm-backend.md).
//
// The job store home (CustomJobOptions::home) must be on a filesystem that
// every node of the cluster sees at the same path: the batch script, the job
// spec, the replicas' peer addresses, exit records and logs live in the job
// directory. So must the "local:" executables and `task_program`.
#ifndef TRAINPKG_SDK_SLURM_SLURM_BACKEND_OPTIONS_H_
#define TRAINPKG_SDK_SLURM_SLURM_BACKEND_OPTIONS_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace trainpkg::sdk::slurm {

// How the job is handed to Slurm (docs/adr/2026-11-24-slurm-backend.md,
// "Submit-to-running").
enum class SlurmSubmit {
  // `sbatch` of the batch script: a batch job, which Slurm starts at its next
  // scheduling pass (up to a second after submission with bf_interval=1, up
  // to several at Slurm's defaults) and whose script runs on the job's first
  // node. The job goes on if the submitting host goes down.
  kSbatch,
  // `salloc <the same options> bash <batch script>`, started in a session of
  // its own: an interactive allocation, which slurmctld schedules inside the
  // request (at once when the resources are free; queued like any job when
  // not), and whose script runs on this host, as salloc's command. The host
  // must be able to run srun (most login nodes can); the job goes on if the
  // submitting process dies, but not if this host does.
  kSalloc,
};

struct SlurmBackendOptions {
  SlurmSubmit submit = SlurmSubmit::kSbatch;
  // sbatch --partition; "" means the cluster's default partition.
  std::string partition;
  // More sbatch (or salloc) options, each one argument, e.g. "--account=ml", "--qos=high",
  // "--time=02:00:00". They apply to every component of the job.
  std::vector<std::string> sbatch_args;
  // acceleratorType -> the GPU type name of the cluster's gres.conf, e.g.
  // {"NVIDIA_TESLA_T4", "t4"}; a pool whose type is not listed asks for
  // untyped GPUs (--gpus-per-task=N).
  std::map<std::string, std::string> gpu_types;
  // The launcher srun runs for each replica (the trainpkg-slurm-task
  // program); "" means trainpkg-slurm-task next to this process's
  // executable.
  std::filesystem::path task_program;
  // How long a replica waits for the addresses of all the others.
  absl::Duration rendezvous_timeout = absl::Minutes(5);
  // How often the job's state is read from the controller (scontrol).
  absl::Duration poll_interval = absl::Milliseconds(200);
};

}  // namespace trainpkg::sdk::slurm

#endif  // TRAINPKG_SDK_SLURM_SLURM_BACKEND_OPTIONS_H_
