// gcloud's --worker-pool-spec syntax:
//   machine-type=n1-standard-4,replica-count=2,container-image-uri=IMAGE,
//   accelerator-type=NVIDIA_TESLA_T4,accelerator-count=1
// Keys accepted: machine-type, replica-count, accelerator-type,
// accelerator-count, container-image-uri, executor-image-uri, python-module,
// disk-type, disk-size. An empty value ("") is a placeholder pool.
#ifndef TRAINPKG_JOBSPEC_WORKER_POOL_FLAG_H_
#define TRAINPKG_JOBSPEC_WORKER_POOL_FLAG_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::jobspec {

// Parses one flag value. InvalidArgument names the key and what is valid
// (unknown keys, repeated keys, non-numeric counts, missing '=').
// replica-count defaults to 1 when the pool is not a placeholder.
absl::StatusOr<WorkerPoolSpec> ParseWorkerPoolSpecFlag(std::string_view value);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_WORKER_POOL_FLAG_H_
