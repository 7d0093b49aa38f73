#include "sdk/job_logs.h"

#include "sdk/internal/recorded_job.h"

namespace trainpkg::sdk {

absl::Status WriteJobLogs(const JobClient& client, std::string_view id,
                          const JobLogsOptions& options, std::ostream& out) {
  return internal::WriteReplicaLogs(client.store(), id, options, out,
                                    [&client, id] { return client.GetJob(id); });
}

}  // namespace trainpkg::sdk
