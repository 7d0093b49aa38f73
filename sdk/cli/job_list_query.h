// `trainpkg jobs list --filter EXPR --sort-by [~]FIELD --limit N`, like
// gcloud's list flags:
//   --filter   the filter of Vertex AI's List*Jobs (sdk/serve/list_filter.h):
//              terms joined by AND, e.g. state=JOB_STATE_RUNNING,
//              displayName:substring, labels.team=ml,
//              createTime>"2026-11-27T00:00:00Z"
//   --sort-by  createTime, displayName or state (the Vertex enum's order); a
//              leading '~' sorts descending. Default: newest first.
//   --limit    at most N jobs, after filtering and sorting; 0: all.
#ifndef TRAINPKG_SDK_CLI_JOB_LIST_QUERY_H_
#define TRAINPKG_SDK_CLI_JOB_LIST_QUERY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sdk/job_client.h"

namespace trainpkg::cli {

struct JobListQuery {
  std::string filter{};
  std::string sort_by{};
  int limit = 0;
};

// `jobs` (newest first, as JobClient::ListJobs returns them) filtered,
// sorted (stably) and cut. InvalidArgument naming --filter (with the
// position) or --sort-by (with the valid fields), or --limit when negative.
absl::StatusOr<std::vector<sdk::JobInfo>> SelectJobs(std::vector<sdk::JobInfo> jobs,
                                                     const JobListQuery& query);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_JOB_LIST_QUERY_H_
