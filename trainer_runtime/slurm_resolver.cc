#include "trainer_runtime/slurm_resolver.h"

#include <numeric>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/internal/env_int.h"
#include "trainer_runtime/slurm_hostlist.h"

namespace trainpkg::runtime {
namespace {

absl::Status Prefixed(std::string_view name, const absl::Status& status) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", name, std::string(status.message())));
}

}  // namespace

absl::StatusOr<std::optional<ClusterInfo>> ResolveFromSlurm(const base::Environment& env) {
  std::optional<std::string> procid_text = env.Get("SLURM_PROCID");
  if (!procid_text.has_value() || procid_text->empty()) return std::nullopt;
  constexpr std::string_view kWhy = "SLURM_PROCID is set; not inside an srun step?";
  TP_ASSIGN_OR_RETURN(std::string tasks_text,
                      internal::RequireEnv(env, "SLURM_STEP_NUM_TASKS", kWhy));
  TP_ASSIGN_OR_RETURN(std::string nodelist, internal::RequireEnv(env, "SLURM_STEP_NODELIST", kWhy));
  TP_ASSIGN_OR_RETURN(std::string per_node_text,
                      internal::RequireEnv(env, "SLURM_STEP_TASKS_PER_NODE", kWhy));

  TP_ASSIGN_OR_RETURN(int64_t procid, internal::ParseEnvInt("SLURM_PROCID", *procid_text, 0));
  TP_ASSIGN_OR_RETURN(int64_t num_tasks,
                      internal::ParseEnvInt("SLURM_STEP_NUM_TASKS", tasks_text, 1));
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(nodelist);
  if (!hosts.ok()) return Prefixed("SLURM_STEP_NODELIST", hosts.status());
  absl::StatusOr<std::vector<int64_t>> per_node = ExpandTasksPerNode(per_node_text);
  if (!per_node.ok()) return Prefixed("SLURM_STEP_TASKS_PER_NODE", per_node.status());

  if (per_node->size() != hosts->size()) {
    return absl::InvalidArgumentError(
        fmt::format("SLURM_STEP_TASKS_PER_NODE: {} nodes, but SLURM_STEP_NODELIST has {}",
                    per_node->size(), hosts->size()));
  }
  int64_t total = std::accumulate(per_node->begin(), per_node->end(), int64_t{0});
  if (total != num_tasks) {
    return absl::InvalidArgumentError(
        fmt::format("SLURM_STEP_TASKS_PER_NODE: {} tasks in all, but SLURM_STEP_NUM_TASKS is {}",
                    total, num_tasks));
  }
  if (procid >= num_tasks) {
    return absl::InvalidArgumentError(
        fmt::format("SLURM_PROCID: {} is not below SLURM_STEP_NUM_TASKS {}", procid, num_tasks));
  }

  std::vector<std::string> addresses;
  for (size_t node = 0; node < hosts->size(); ++node) {
    for (int64_t local = 0; local < (*per_node)[node]; ++local) {
      addresses.push_back(fmt::format("{}:{}", (*hosts)[node], kSlurmPortBase + local));
    }
  }
  absl::StatusOr<ClusterInfo> info =
      ClusterInfoFromTfCluster({{"worker", std::move(addresses)}}, "worker", procid);
  if (!info.ok()) return info.status();
  info->source = "slurm";
  info->trial_id = env.Get("CLOUD_ML_TRIAL_ID").value_or("");
  return *std::move(info);
}

}  // namespace trainpkg::runtime
