// How `trainpkg jobs describe|logs|cancel` read the job they are given:
// a full id, a prefix of exactly one id (like docker's short ids), or
// `latest` (the job created last). CustomJobs and tuning jobs share one id
// namespace (sdk/hptune/tuning_job_store.h), so both are searched.
#ifndef TRAINPKG_SDK_CLI_JOB_ID_RESOLVER_H_
#define TRAINPKG_SDK_CLI_JOB_ID_RESOLVER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/job_store.h"

namespace trainpkg::cli {

// At most this many candidates are named when a prefix is ambiguous.
inline constexpr size_t kMaxNamedCandidates = 10;

// The full id `text` stands for: `text` itself when a job has that id;
// the newest job (by create time; jobs without one count as oldest) for
// "latest"; else the one id starting with `text`. NotFound when no job
// matches (or, for "latest", there is none); InvalidArgument listing the
// candidates (up to kMaxNamedCandidates, then how many more) when several
// ids start with `text`, or when `text` is empty.
absl::StatusOr<std::string> ResolveJobId(const sdk::JobStore& jobs,
                                         const sdk::hptune::TuningJobStore& tuning_jobs,
                                         std::string_view text);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_JOB_ID_RESOLVER_H_
