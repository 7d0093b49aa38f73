// `--scale-tier` and its companions, spelled as gcloud ai-platform jobs submit
// training spells them: the tier's worker pools with the job's image in each.
#ifndef TRAINPKG_SDK_CLI_SCALE_TIER_FLAGS_H_
#define TRAINPKG_SDK_CLI_SCALE_TIER_FLAGS_H_

#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/cli/job_from_flags.h"

namespace trainpkg::cli {

// Adds --scale-tier, the CUSTOM machine flags, the image flags and
// --executor-image-uri/--python-module to `command`, storing into `flags`.
void AddScaleTierFlags(CLI::App& command, RunFlags& flags);

// The pools of flags.scale_tier (pool 0 master, 1 workers, 2 parameter
// servers, 3 evaluators), each running a container of --master-image-uri (or
// the pool's own --worker-image-uri, --parameter-server-image-uri,
// --evaluator-image-uri) or, with --executor-image-uri, `python3 -m
// --python-module` on that executor. InvalidArgument naming the flag when the
// tier is unknown or refused, the CUSTOM flags are wrong
// (jobspec::ScaleTierPools), no image or both kinds are given, or a companion
// flag is given without --scale-tier. REQUIRES: flags.scale_tier is not empty.
absl::StatusOr<std::vector<jobspec::WorkerPoolSpec>> ScaleTierPoolsFromFlags(const RunFlags& flags);

// InvalidArgument naming the first --scale-tier companion flag set in `flags`
// (they mean nothing without --scale-tier); OK when none is.
absl::Status CheckNoScaleTierCompanions(const RunFlags& flags);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_SCALE_TIER_FLAGS_H_
