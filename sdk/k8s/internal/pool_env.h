// The environment Vertex injects (jobspec/cluster_env.h), written once for
// every replica of a worker pool, since a pod template is shared by the
// pool's replicas: what differs between replicas is only the replica index,
// so the first entry reads the index from a label of the pod (downward API)
// and the other values refer to it as $(TRAINPKG_REPLICA_INDEX), which the
// kubelet expands.
#ifndef TRAINPKG_SDK_K8S_INTERNAL_POOL_ENV_H_
#define TRAINPKG_SDK_K8S_INTERNAL_POOL_ENV_H_

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/cluster_env.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::k8s::internal {

inline constexpr char kReplicaIndexVariable[] = "TRAINPKG_REPLICA_INDEX";
inline constexpr char kGlobalIndexVariable[] = "TRAINPKG_GLOBAL_INDEX";

struct PoolEnvRequest {
  // spec, job id, project, trial and addresses; `replica` is ignored.
  jobspec::ClusterEnvRequest cluster{};
  int pool = 0;
  // The pod label holding the replica index, e.g. "jobset.sigs.k8s.io/job-index".
  std::string index_label{};
  // Variables left out (a TFJob's operator writes TF_CONFIG itself).
  std::set<std::string> omit{};
  // A pod label holding the job's index across all pools (JobSet's
  // "jobset.sigs.k8s.io/job-global-index"), and its value for this pool's
  // replica 0: values that count with it (RANK = 1 + i in workerpool1) refer
  // to $(TRAINPKG_GLOBAL_INDEX). "" when the workload has no such label.
  std::string global_index_label{};
  int64_t global_index_offset = 0;
};

// A container's "env" list: [TRAINPKG_REPLICA_INDEX from the label when the
// pool has more than one replica,] [TRAINPKG_GLOBAL_INDEX from the global
// label when a value needs it,] then every variable of MakeClusterEnv in
// name order, each "$" doubled so that the kubelet expands nothing else.
// Errors: MakeClusterEnv's; Internal when two replicas' values differ by
// more than a count the labels give (a bug).
absl::StatusOr<nlohmann::json> MakePoolEnv(const PoolEnvRequest& request);

}  // namespace trainpkg::sdk::k8s::internal

#endif  // TRAINPKG_SDK_K8S_INTERNAL_POOL_ENV_H_
