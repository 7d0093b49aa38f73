// Cancelling the Slurm job of a job record whose supervisor is gone (the
// job store's repair of orphaned jobs, sdk/job_client.h), so no Slurm job
// outlives the record that would have followed it.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_RECORDED_JOB_CANCEL_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_RECORDED_JOB_CANCEL_H_

#include <filesystem>

namespace trainpkg::sdk::slurm::internal {

// When `job_dir` records a Slurm job id (<job dir>/slurm/job_id), runs
// `scancel <id>` with this process's environment and returns true; false
// for jobs of other backends. scancel's own failures are logged.
bool CancelRecordedSlurmJob(const std::filesystem::path& job_dir);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_RECORDED_JOB_CANCEL_H_
