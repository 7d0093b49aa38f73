#include "trainer_runtime/cluster_info.h"

#include <optional>

#include "fmt/format.h"
#include "jobspec/job_secret.h"
#include "trainer_runtime/cluster_spec_resolver.h"
#include "trainer_runtime/slurm_resolver.h"
#include "trainer_runtime/tf_config_resolver.h"
#include "trainer_runtime/torchrun_resolver.h"

namespace trainpkg::runtime {
namespace {

size_t CountOf(const TfCluster& cluster, const std::string& task_type) {
  auto it = cluster.find(task_type);
  return it == cluster.end() ? 0 : it->second.size();
}

// "host" of "host:port" ("[::1]" of "[::1]:80"); the whole string without a port.
std::string_view HostOf(std::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || address.ends_with(']')) return address;
  return address.substr(0, colon);
}

}  // namespace

absl::StatusOr<ClusterInfo> ClusterInfoFromTfCluster(const TfCluster& cluster,
                                                     std::string_view task_type,
                                                     int64_t task_index) {
  if (task_type != "chief" && task_type != "worker" && task_type != "ps" &&
      task_type != "evaluator") {
    return absl::InvalidArgumentError(
        fmt::format("task.type: unknown task type \"{}\" (expected chief, worker, ps or evaluator)",
                    task_type));
  }
  const size_t chiefs = CountOf(cluster, "chief");
  const size_t workers = CountOf(cluster, "worker");
  if (chiefs > 1) {
    return absl::InvalidArgumentError(
        fmt::format("cluster.chief: {} addresses; a cluster has at most one chief", chiefs));
  }
  if (chiefs + workers == 0) {
    return absl::InvalidArgumentError("cluster: has neither a chief nor a worker");
  }
  // TF_CONFIG never lists evaluators, so an evaluator's index is checked only
  // when the cluster does.
  auto own = cluster.find(std::string(task_type));
  if (own == cluster.end() && task_type != "evaluator") {
    return absl::InvalidArgumentError(
        fmt::format("task.type: \"{}\" is not a key of cluster", task_type));
  }
  if (task_index < 0 ||
      (own != cluster.end() && static_cast<size_t>(task_index) >= own->second.size())) {
    return absl::InvalidArgumentError(
        fmt::format("task.index: {} is out of range for cluster.{} ({} addresses)", task_index,
                    task_type, own == cluster.end() ? 0 : own->second.size()));
  }

  ClusterInfo info;
  info.task_type = task_type;
  info.task_index = task_index;
  info.world_size = static_cast<int64_t>(chiefs + workers);
  for (const char* member : {"chief", "worker"}) {
    auto it = cluster.find(member);
    if (it == cluster.end()) continue;
    info.worker_addresses.insert(info.worker_addresses.end(), it->second.begin(), it->second.end());
  }
  if (auto ps = cluster.find("ps"); ps != cluster.end()) info.ps_addresses = ps->second;
  info.coordinator_address = info.worker_addresses.front();

  if (task_type == "chief" || task_type == "worker") {
    info.rank = task_type == "chief" ? 0 : task_index + static_cast<int64_t>(chiefs);
    std::string_view host = HostOf(info.worker_addresses[info.rank]);
    for (int64_t r = 0; r < info.rank; ++r) {
      if (HostOf(info.worker_addresses[r]) == host) ++info.local_rank;
    }
  } else {
    info.rank = -1;
  }
  info.is_chief = info.rank == 0;
  return info;
}

namespace {

absl::StatusOr<ClusterInfo> ResolveLauncher(const base::Environment& env) {
  using Resolver = absl::StatusOr<std::optional<ClusterInfo>> (*)(const base::Environment&);
  // torchrun before Slurm: under `srun torchrun ...` RANK names the process,
  // SLURM_PROCID only the node's launcher.
  constexpr Resolver kResolvers[] = {ResolveFromTfConfig, ResolveFromClusterSpec,
                                     ResolveFromTorchrun, ResolveFromSlurm};
  for (Resolver resolver : kResolvers) {
    absl::StatusOr<std::optional<ClusterInfo>> info = resolver(env);
    if (!info.ok()) return info.status();
    if (info->has_value()) return **info;
  }
  ClusterInfo single;
  single.source = "single";
  single.task_type = "chief";
  single.trial_id = env.Get("CLOUD_ML_TRIAL_ID").value_or("");
  return single;
}

}  // namespace

absl::StatusOr<ClusterInfo> ResolveClusterInfo(const base::Environment& env) {
  absl::StatusOr<ClusterInfo> info = ResolveLauncher(env);
  if (!info.ok()) return info.status();
  info->job_secret = env.Get(jobspec::kJobSecretEnv).value_or("");
  info->collectives = env.Get("TRAINPKG_COLLECTIVES").value_or("");
  if (!info->job_secret.empty()) {
    if (absl::Status valid = jobspec::ValidateJobSecret(info->job_secret); !valid.ok()) {
      return valid;
    }
  }
  return info;
}

}  // namespace trainpkg::runtime
