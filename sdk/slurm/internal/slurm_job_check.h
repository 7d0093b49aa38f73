// What CustomJob::Create checks before a job goes to Slurm, so that a job
// Slurm could never run is refused before anything is written.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_CHECK_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_CHECK_H_

#include <vector>

#include "absl/status/status.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/replica_plan.h"
#include "sdk/slurm/slurm_backend_options.h"

namespace trainpkg::sdk::slurm::internal {

// Unimplemented, naming the field, for a container image (only "local:"
// executables run); InvalidArgument for a machine type without a mapping
// (slurm_resources.h); NotFound / PermissionDenied when the task launcher
// cannot be executed. Sets options.task_program to its absolute path
// (default: trainpkg-slurm-task beside /proc/self/exe).
absl::Status CheckSlurmJob(const jobspec::CustomJobSpec& spec,
                           const std::vector<sdk::internal::ReplicaPlan>& plans,
                           SlurmBackendOptions& options);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_SLURM_JOB_CHECK_H_
