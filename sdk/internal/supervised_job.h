// A job a supervisor in this process runs and records in the job store: the
// BackendJob (sdk/backend_driver.h) of the local and Slurm backends, which
// differ only in the engine that runs the replicas (LocalProcessBackend, or
// SlurmBackend's sbatch job).
#ifndef TRAINPKG_SDK_INTERNAL_SUPERVISED_JOB_H_
#define TRAINPKG_SDK_INTERNAL_SUPERVISED_JOB_H_

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/backend_driver.h"
#include "sdk/custom_job.h"
#include "sdk/internal/job_backend.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/supervised_job_config.h"
#include "sdk/job_store.h"

namespace trainpkg::sdk::internal {

// Makes the engine of a recorded (QUEUED) job.
using SupervisedEngineFactory = std::function<std::unique_ptr<JobBackend>(
    SupervisedJobConfig config, std::shared_ptr<JobRecorder> recorder)>;

// The job id rule of supervised jobs: jobspec::ValidateJobId.
absl::Status CheckSupervisedJobId(std::string_view id);

// Prepares `job` (already validated by ValidateCustomJob and the backend's
// own checks): the job store home, clock, launcher and id are settled (an
// empty options.job_id generates one; another must pass
// CheckSupervisedJobId, InvalidArgument "job_id: ..." otherwise).
// REQUIRES: options.environment set.
absl::StatusOr<std::unique_ptr<BackendJob>> PrepareSupervisedJob(jobspec::CustomJob job,
                                                                 CustomJobOptions options,
                                                                 LineStream* log,
                                                                 SupervisedEngineFactory engine);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_SUPERVISED_JOB_H_
