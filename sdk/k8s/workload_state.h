// A JobSet's, TFJob's or PyTorchJob's status read as a Vertex job state:
//   JobSet      status.terminalState or a True condition: Completed ->
//               SUCCEEDED, Failed -> FAILED; else RUNNING once a replicated
//               job has active or ready Jobs, PENDING before.
//   TFJob/PyTorchJob  the last True condition: Succeeded -> SUCCEEDED,
//               Failed -> FAILED, Running or Restarting -> RUNNING, Created
//               -> PENDING; none yet -> QUEUED.
// A failure carries code 3 (4 when the reason is DeadlineExceeded, the
// scheduling timeout) and the condition's message.
#ifndef TRAINPKG_SDK_K8S_WORKLOAD_STATE_H_
#define TRAINPKG_SDK_K8S_WORKLOAD_STATE_H_

#include <optional>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"
#include "sdk/k8s/workload_kind.h"

namespace trainpkg::sdk::k8s {

struct WorkloadState {
  jobspec::JobState state = jobspec::JobState::kQueued;
  std::optional<jobspec::RpcStatus> error{};
};

WorkloadState ReadWorkloadState(WorkloadKind kind, const nlohmann::json& object);

// Moves `job` to `state` with `error` at `now`, with the times Vertex keeps:
// createTime once, startTime at the first RUNNING, endTime when terminal,
// updateTime always.
void SetJobState(jobspec::CustomJob& job, jobspec::JobState state,
                 std::optional<jobspec::RpcStatus> error, absl::Time now);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_WORKLOAD_STATE_H_
