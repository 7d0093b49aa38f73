// The Python SDK's job state lines, written by the remote backends (Vertex
// AI, Kubernetes) when a job's state changes:
//   CustomJob <name> current state:\n<JOB_STATE_...>
//   CustomJob run completed. Resource name: <name>       (SUCCEEDED)
//   Job failed with:\ncode: <n>\nmessage: "<text>"        (other terminal states with an error)
#ifndef TRAINPKG_SDK_INTERNAL_STATE_LINES_H_
#define TRAINPKG_SDK_INTERNAL_STATE_LINES_H_

#include <optional>
#include <string_view>

#include "jobspec/custom_job.h"
#include "sdk/internal/line_stream.h"

namespace trainpkg::sdk::internal {

// `log` may be null (nothing is written).
void WriteStateLines(LineStream* log, std::string_view name, jobspec::JobState state,
                     const std::optional<jobspec::RpcStatus>& error);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_STATE_LINES_H_
