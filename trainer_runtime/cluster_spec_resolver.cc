#include "trainer_runtime/cluster_spec_resolver.h"

#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/cluster_env.h"

namespace trainpkg::runtime {
namespace {

constexpr int kPools = 4;

absl::Status Invalid(std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("CLUSTER_SPEC: {}: {}", path, what));
}

// 0..3 for "workerpool0".."workerpool3"; -1 otherwise.
int PoolNumber(std::string_view name) {
  for (int pool = 0; pool < kPools; ++pool) {
    if (name == fmt::format("workerpool{}", pool)) return pool;
  }
  return -1;
}

}  // namespace

absl::StatusOr<std::optional<ClusterInfo>> ResolveFromClusterSpec(const base::Environment& env) {
  std::optional<std::string> text = env.Get("CLUSTER_SPEC");
  if (!text.has_value() || text->empty()) return std::nullopt;
  TP_ASSIGN_OR_RETURN(jobspec::ClusterSpecEnv spec, jobspec::ParseClusterSpec(*text));

  TfCluster cluster;
  for (const auto& [name, addresses] : spec.cluster) {
    int pool = PoolNumber(name);
    if (pool < 0) {
      return Invalid(fmt::format("cluster.{}", name),
                     "unknown worker pool (expected workerpool0 to workerpool3)");
    }
    if (pool == 0 && addresses.size() > 1) {
      return Invalid("cluster.workerpool0",
                     fmt::format("{} replicas; the primary pool has one", addresses.size()));
    }
    if (!addresses.empty()) cluster[std::string(jobspec::TfTaskTypeForPool(pool))] = addresses;
  }
  if (!cluster.contains("chief") && !cluster.contains("worker")) {
    return Invalid("cluster", "has neither workerpool0 nor workerpool1");
  }
  int pool = PoolNumber(spec.task_type);
  if (pool < 0) {
    return Invalid("task.type", fmt::format("unknown worker pool \"{}\" (expected workerpool0 to "
                                            "workerpool3)",
                                            spec.task_type));
  }
  auto own = spec.cluster.find(spec.task_type);
  size_t size = own == spec.cluster.end() ? 0 : own->second.size();
  if (static_cast<uint64_t>(spec.task_index) >= size) {
    return Invalid("task.index", fmt::format("{} is out of range for cluster.{} ({} replicas)",
                                             spec.task_index, spec.task_type, size));
  }

  absl::StatusOr<ClusterInfo> info =
      ClusterInfoFromTfCluster(cluster, jobspec::TfTaskTypeForPool(pool), spec.task_index);
  if (!info.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("CLUSTER_SPEC: {}", std::string(info.status().message())));
  }
  info->source = "CLUSTER_SPEC";
  info->trial_id = spec.trial.empty() ? env.Get("CLOUD_ML_TRIAL_ID").value_or("") : spec.trial;
  return *std::move(info);
}

}  // namespace trainpkg::runtime
