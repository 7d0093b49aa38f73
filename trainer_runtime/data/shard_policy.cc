#include "trainer_runtime/data/shard_policy.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace trainpkg::data {
namespace {

absl::Status CheckWorker(int64_t rank, int64_t world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    return absl::InvalidArgumentError(fmt::format(
        "worker rank {} of world size {}: need world_size >= 1 and 0 <= rank < world_size", rank,
        world_size));
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view AutoShardPolicyName(AutoShardPolicy policy) {
  switch (policy) {
    case AutoShardPolicy::kOff:
      return "OFF";
    case AutoShardPolicy::kAuto:
      return "AUTO";
    case AutoShardPolicy::kFile:
      return "FILE";
    case AutoShardPolicy::kData:
      return "DATA";
  }
  return "UNKNOWN";
}

absl::StatusOr<AutoShardPolicy> ParseAutoShardPolicy(std::string_view name) {
  const std::string upper = absl::AsciiStrToUpper(std::string(name));
  for (AutoShardPolicy p : {AutoShardPolicy::kOff, AutoShardPolicy::kAuto, AutoShardPolicy::kFile,
                            AutoShardPolicy::kData}) {
    if (upper == AutoShardPolicyName(p)) return p;
  }
  return absl::InvalidArgumentError(
      fmt::format("unknown shard policy '{}'; valid: OFF, AUTO, FILE, DATA", name));
}

absl::StatusOr<ShardPlan> PlanSharding(AutoShardPolicy policy,
                                       std::vector<std::filesystem::path> files, int64_t rank,
                                       int64_t world_size) {
  if (absl::Status s = CheckWorker(rank, world_size); !s.ok()) return s;
  const auto num_files = static_cast<int64_t>(files.size());
  if (policy == AutoShardPolicy::kAuto) {
    policy = num_files >= world_size ? AutoShardPolicy::kFile : AutoShardPolicy::kData;
  }
  ShardPlan plan;
  plan.applied = policy;
  switch (policy) {
    case AutoShardPolicy::kOff:
      plan.files = std::move(files);
      break;
    case AutoShardPolicy::kData:
      plan.files = std::move(files);
      plan.data_shard_index = rank;
      plan.data_num_shards = world_size;
      break;
    case AutoShardPolicy::kFile:
      if (num_files < world_size) {
        return absl::InvalidArgumentError(fmt::format(
            "FILE sharding needs at least as many input files as workers: {} file(s) for {} "
            "workers; use AUTO or DATA to shard by element",
            num_files, world_size));
      }
      for (int64_t i = rank; i < num_files; i += world_size) plan.files.push_back(files[i]);
      break;
    case AutoShardPolicy::kAuto:
      break;  // resolved above
  }
  return plan;
}

absl::StatusOr<Dataset> ShardDataset(const Dataset& dataset, AutoShardPolicy policy, int64_t rank,
                                     int64_t world_size) {
  if (absl::Status s = CheckWorker(rank, world_size); !s.ok()) return s;
  switch (policy) {
    case AutoShardPolicy::kOff:
      return dataset;
    case AutoShardPolicy::kAuto:
    case AutoShardPolicy::kData:
      return dataset.Shard(rank, world_size);
    case AutoShardPolicy::kFile:
      break;
  }
  return absl::InvalidArgumentError(
      "FILE sharding needs a file-based source; an in-memory data set can be sharded with DATA, "
      "AUTO or OFF");
}

}  // namespace trainpkg::data
