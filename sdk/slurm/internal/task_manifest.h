// What the task launcher of every replica of a Slurm job reads from
// <job dir>/slurm/task.json: the job's id, project and spec (as recorded:
// absolute executables, the output directory set).
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_TASK_MANIFEST_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_TASK_MANIFEST_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::sdk::slurm::internal {

struct TaskManifest {
  std::string job_id;      // CLOUD_ML_JOB_ID
  std::string project_id;  // CLOUD_ML_PROJECT_ID
  jobspec::CustomJobSpec spec;
};

// {"jobId":"...","projectId":"...","jobSpec":{CustomJobSpec as Vertex JSON}}
std::string FormatTaskManifest(const TaskManifest& manifest);
// InvalidArgument naming the field that is missing or malformed.
absl::StatusOr<TaskManifest> ParseTaskManifest(std::string_view text);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_TASK_MANIFEST_H_
