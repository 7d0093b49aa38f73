// Printing a local job's replica logs (<job dir>/logs/<replica>.log).
#ifndef TRAINPKG_SDK_JOB_LOGS_H_
#define TRAINPKG_SDK_JOB_LOGS_H_

#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sdk/job_client.h"

namespace trainpkg::sdk {

struct JobLogsOptions {
  // One replica ("workerpool1-0"), written raw; "" writes every replica's
  // lines prefixed "[workerpool1-0] ", replica after replica.
  std::string replica;
  // Keep reading new lines until the job is terminal.
  bool follow = false;
  absl::Duration poll_interval = absl::Milliseconds(200);
};

// NotFound when the job or the named replica does not exist. Only whole
// lines are written while following; a last line without '\n' is completed
// once the job is terminal.
absl::Status WriteJobLogs(const JobClient& client, std::string_view id,
                          const JobLogsOptions& options, std::ostream& out);

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_JOB_LOGS_H_
