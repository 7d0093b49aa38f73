// The errors a job ends with (CustomJob.error, a google.rpc.Status), as Vertex
// AI words and codes them, shared by every backend that judges its replicas
// itself (local, Slurm) and by the job store's repair of orphaned jobs.
#ifndef TRAINPKG_SDK_INTERNAL_JOB_ERRORS_H_
#define TRAINPKG_SDK_INTERNAL_JOB_ERRORS_H_

#include <filesystem>
#include <string_view>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::internal {

// google.rpc.Code values of the errors below.
inline constexpr int kCodeCancelled = 1;
inline constexpr int kCodeInvalidArgument = 3;
inline constexpr int kCodeReplicaFailed = 3;  // INVALID_ARGUMENT, as Vertex AI reports it
inline constexpr int kCodeDeadlineExceeded = 4;
inline constexpr int kCodeInternal = 13;

// Code 1 "CANCELLED".
jobspec::RpcStatus CancelledError();

// Code 3 "The replica workerpool1-0 exited with a non-zero status of 3. To
// find out more about why your job exited please check the logs: <log>".
jobspec::RpcStatus ReplicaFailedError(std::string_view replica, const ExitStatus& status,
                                      const std::filesystem::path& log);

// Code 4 "The job exceeded its timeout of <timeout> (scheduling.timeout) and
// was stopped."
jobspec::RpcStatus TimeoutError(absl::Duration timeout);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_JOB_ERRORS_H_
