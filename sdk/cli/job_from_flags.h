// `trainpkg run`'s flags and the CustomJob they describe.
#ifndef TRAINPKG_SDK_CLI_JOB_FROM_FLAGS_H_
#define TRAINPKG_SDK_CLI_JOB_FROM_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "jobspec/worker_pool_flag.h"

namespace trainpkg::cli {

struct RunFlags {
  std::string config;                            // --config FILE
  std::vector<std::string> worker_pool_specs;    // --worker-pool-spec, one per pool, in order
  std::string display_name;                      // --display-name
  std::string base_output_dir;                   // --base-output-dir
  std::vector<std::string> args;                 // --args (already split at commas)
  std::vector<std::string> command;              // --command (already split at commas)
  std::vector<std::string> python_package_uris;  // --python-package-uris (split at commas)
  std::vector<std::string> labels;               // --labels entries "key=value"
  std::string job_id;                            // --job-id
  // AI Platform's scale tiers (gcloud ai-platform jobs submit training).
  std::string scale_tier;                         // --scale-tier
  std::string master_machine_type;                // --master-machine-type
  std::string worker_machine_type;                // --worker-machine-type
  std::optional<int64_t> worker_count;            // --worker-count
  std::string parameter_server_machine_type;      // --parameter-server-machine-type
  std::optional<int64_t> parameter_server_count;  // --parameter-server-count
  std::string evaluator_machine_type;             // --evaluator-machine-type
  std::optional<int64_t> evaluator_count;         // --evaluator-count
  std::string master_image_uri;                   // --master-image-uri
  std::string worker_image_uri;                   // --worker-image-uri
  std::string parameter_server_image_uri;         // --parameter-server-image-uri
  std::string evaluator_image_uri;                // --evaluator-image-uri
  std::string executor_image_uri;                 // --executor-image-uri
  std::string python_module;                      // --python-module
  bool detach = false;
  bool validate_only = false;
  bool quiet = false;
  bool host_network = false;  // --host-network
};

struct FlagJob {
  jobspec::CustomJob job;
  // The first --worker-pool-spec's local-package-path: the pools waiting for
  // its image have a containerSpec with an empty imageUri
  // (jobspec/worker_pool_flag.h).
  std::optional<jobspec::Autopackaging> autopackaging;
};

// The job file (if any) with the flags applied on top: --worker-pool-spec
// replaces the pools; --scale-tier (instead of --config and
// --worker-pool-spec) makes them from the tier's table (jobspec/scale_tier.h),
// each running --master-image-uri (or the pool's own --worker-image-uri ...)
// or --executor-image-uri with --python-module (sdk/cli/scale_tier_flags.h);
// --command replaces and --args extends every pool's containerSpec, --args
// and --python-package-uris extend every pool's pythonPackageSpec
// (InvalidArgument for the latter when no pool has one, or with
// local-package-path), --labels are merged, --display-name and
// --base-output-dir override. Without a display name the job is called
// "CustomJob <now>", as the Python SDK does. InvalidArgument naming the file
// or flag; the job is not validated here.
absl::StatusOr<FlagJob> JobFromFlags(const RunFlags& flags, absl::Time now);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_JOB_FROM_FLAGS_H_
