#include "sdk/internal/job_errors.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "jobspec/custom_job_json.h"

namespace trainpkg::sdk::internal {

jobspec::RpcStatus CancelledError() {
  return jobspec::RpcStatus{.code = kCodeCancelled, .message = "CANCELLED"};
}

jobspec::RpcStatus ReplicaFailedError(std::string_view replica, const ExitStatus& status,
                                      const std::filesystem::path& log) {
  return jobspec::RpcStatus{
      .code = kCodeReplicaFailed,
      .message = absl::StrCat("The replica ", std::string(replica), " ",
                              DescribeExitStatus(status),
                              ". To find out more about why your job exited please check the "
                              "logs: ",
                              log.string())};
}

jobspec::RpcStatus TimeoutError(absl::Duration timeout) {
  return jobspec::RpcStatus{
      .code = kCodeDeadlineExceeded,
      .message = absl::StrCat("The job exceeded its timeout of ", jobspec::FormatDuration(timeout),
                              " (scheduling.timeout) and was stopped.")};
}

}  // namespace trainpkg::sdk::internal
