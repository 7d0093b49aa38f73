// What a replica started on another machine reads to know its job: the
// job's id, project and spec (as recorded: absolute executables, the output
// directory set). The Slurm backend writes one for all its tasks
// (<job dir>/slurm/task.json); the SSH backend one per container replica,
// naming the replica and carrying its cluster env (read, then deleted, by
// `trainpkg ssh-replica` on its host: it holds the job secret).
#ifndef TRAINPKG_SDK_INTERNAL_TASK_MANIFEST_H_
#define TRAINPKG_SDK_INTERNAL_TASK_MANIFEST_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::sdk::internal {

struct TaskManifest {
  std::string job_id;      // CLOUD_ML_JOB_ID
  std::string project_id;  // CLOUD_ML_PROJECT_ID
  jobspec::CustomJobSpec spec;
  // One replica's manifest (the SSH backend's): its name ("workerpool1-0")
  // and cluster env; "" and empty in a manifest for every replica.
  std::string replica;
  std::map<std::string, std::string> env;
};

// {"jobId":"...","projectId":"...","jobSpec":{CustomJobSpec as Vertex JSON}},
// and "replica":"...","env":{"NAME":"value",...} when set.
std::string FormatTaskManifest(const TaskManifest& manifest);
// InvalidArgument naming the field that is missing or malformed.
absl::StatusOr<TaskManifest> ParseTaskManifest(std::string_view text);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_TASK_MANIFEST_H_
