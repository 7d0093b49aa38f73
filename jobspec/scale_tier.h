// AI Platform Training's scale tiers (gcloud ai-platform jobs submit training
// --scale-tier) as Vertex worker pools: pool 0 the master (chief), 1 the
// workers, 2 the parameter servers, 3 the evaluators. The table and its
// sources: docs/adr/2026-11-27-scale-tiers.md.
//
//   tier        master            workers             parameter servers
//   BASIC       1 n1-standard-4   -                   -
//   STANDARD_1  1 n1-highcpu-8    4 n1-highcpu-8      3 n1-standard-4
//   PREMIUM_1   1 n1-highcpu-16   19 n1-highcpu-16    11 n1-highmem-8
//   BASIC_GPU   1 n1-standard-8 with 1 NVIDIA_TESLA_K80
//   CUSTOM      the machine types and counts given (gcloud's flags)
//   BASIC_TPU   refused: it needs a Cloud TPU, which no trainpkg backend runs
#ifndef TRAINPKG_JOBSPEC_SCALE_TIER_H_
#define TRAINPKG_JOBSPEC_SCALE_TIER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::jobspec {

enum class ScaleTier { kBasic, kStandard1, kPremium1, kBasicGpu, kBasicTpu, kCustom };

// The tier named as gcloud takes it: case-insensitive, '-' or '_' between the
// words ("standard-1", "STANDARD_1"). InvalidArgument naming --scale-tier, the
// valid names and the nearest one when the name is misspelled.
absl::StatusOr<ScaleTier> ParseScaleTier(std::string_view name);

// "BASIC", "STANDARD_1", ... (the REST enum name).
std::string_view ScaleTierName(ScaleTier tier);

// CUSTOM's cluster, in gcloud's flags (TrainingInput's masterType, workerType
// and workerCount, ...). Counts are nullopt when not given; every member has
// a default so that designated initializers may name only some.
struct CustomTierMachines {
  std::string master_machine_type = {};                // --master-machine-type
  std::string worker_machine_type = {};                // --worker-machine-type
  std::optional<int64_t> worker_count = {};            // --worker-count
  std::string parameter_server_machine_type = {};      // --parameter-server-machine-type
  std::optional<int64_t> parameter_server_count = {};  // --parameter-server-count
  std::string evaluator_machine_type = {};             // --evaluator-machine-type
  std::optional<int64_t> evaluator_count = {};         // --evaluator-count

  bool IsEmpty() const;
};

// The pools of `tier`, each with a machineSpec and a replicaCount and no task
// (the caller sets containerSpec or pythonPackageSpec). Pools after the last
// one in use are left out; a pool not in use before it is a placeholder ({}).
// InvalidArgument, naming the flag:
//   - BASIC_TPU, with the reason;
//   - `machines` set for a tier other than CUSTOM (those tiers fix their pools);
//   - CUSTOM without a master machine type, a count without its machine type
//     or a machine type without its count, a count below 1.
absl::StatusOr<std::vector<WorkerPoolSpec>> ScaleTierPools(ScaleTier tier,
                                                           const CustomTierMachines& machines);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_SCALE_TIER_H_
