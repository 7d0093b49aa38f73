// Which part of the input each worker reads, with the semantics of TF's
// tf.data.experimental.AutoShardPolicy (same names and numeric values):
//
//   OFF  (-1) no sharding: every worker reads every element.
//   AUTO  (0) FILE when there are at least world_size input files, else DATA.
//   FILE  (1) worker `rank` reads the files whose index i in the (ordered)
//             file list satisfies i % world_size == rank, all of their
//             elements. Fewer files than workers is an error (some worker
//             would get nothing), naming both counts.
//   DATA  (2) every worker reads every file and keeps the elements whose
//             position i in the whole stream satisfies i % world_size == rank;
//             the input order must be deterministic (it is here).
//
// Sharding happens at the source, before shuffling and batching, so the
// workers' element sets are disjoint and together cover the input.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_SHARD_POLICY_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_SHARD_POLICY_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"

namespace trainpkg::data {

enum class AutoShardPolicy { kOff = -1, kAuto = 0, kFile = 1, kData = 2 };

// "OFF", "AUTO", "FILE", "DATA".
std::string_view AutoShardPolicyName(AutoShardPolicy policy);
// Case-insensitive inverse of AutoShardPolicyName; InvalidArgument naming the
// valid names otherwise.
absl::StatusOr<AutoShardPolicy> ParseAutoShardPolicy(std::string_view name);

// What one worker reads.
struct ShardPlan {
  AutoShardPolicy applied = AutoShardPolicy::kOff;  // kOff, kFile or kData, never kAuto
  std::vector<std::filesystem::path> files;         // this worker's files, in order
  int64_t data_shard_index = 0;  // keep elements i with i % data_num_shards == data_shard_index
  int64_t data_num_shards = 1;   // 1: keep every element
};

// The plan of worker `rank` of `world_size` over `files`.
// InvalidArgument when world_size < 1, rank is outside [0, world_size), or
// the policy is FILE and files.size() < world_size.
absl::StatusOr<ShardPlan> PlanSharding(AutoShardPolicy policy,
                                       std::vector<std::filesystem::path> files, int64_t rank,
                                       int64_t world_size);

// The same for a data set already in memory (it has no files): OFF returns
// it whole, DATA and AUTO return dataset.Shard(rank, world_size), FILE is
// InvalidArgument (TF: "unshardable source"), as are a bad rank/world_size.
absl::StatusOr<Dataset> ShardDataset(const Dataset& dataset, AutoShardPolicy policy, int64_t rank,
                                     int64_t world_size);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_SHARD_POLICY_H_
