// How `trainpkg jobs` shows jobs to people and scripts. Every text a job
// file, a REST request or a service supplied (display name, labels, args,
// error messages, names) goes through base::TerminalSafe: control
// characters and invalid UTF-8 show as escapes ("\x1b", "\n" in a cell),
// and JSON output stays valid JSON.
#ifndef TRAINPKG_SDK_CLI_JOB_VIEW_H_
#define TRAINPKG_SDK_CLI_JOB_VIEW_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "sdk/job_client.h"

namespace trainpkg::cli {

// Columns ID, DISPLAY NAME, STATE, CREATED (local time), DURATION (start to
// end, or to `now` while running; "-" before it starts), BACKEND (local,
// slurm or vertex; a vertex job's STATE is the last one recorded).
std::string FormatJobTable(const std::vector<sdk::JobInfo>& jobs, absl::Time now);

// A JSON array of the jobs as Vertex REST resources.
std::string FormatJobListJson(const std::vector<sdk::JobInfo>& jobs);

// The job's JSON followed by the local details: job directory, the Slurm
// job id of a Slurm job, supervisor, and for each replica its pid, address,
// exit status and log file; for a Vertex job, its resource name, endpoint
// and job directory instead; for a Kubernetes job, its workload.
std::string FormatJobDescription(const sdk::JobInfo& job, const sdk::JobStore& store);

// "850ms", "12.3s", "4m05s", "2h03m".
std::string FormatElapsed(absl::Duration d);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_JOB_VIEW_H_
