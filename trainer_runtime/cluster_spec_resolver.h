// ClusterInfo from CLUSTER_SPEC, which Vertex sets on every replica
// (jobspec/cluster_env.h). Worker pools map to TF task types: workerpool0 ->
// chief, workerpool1 -> worker, workerpool2 -> ps, workerpool3 -> evaluator;
// then the rule of cluster_info.h applies.
#ifndef TRAINPKG_TRAINER_RUNTIME_CLUSTER_SPEC_RESOLVER_H_
#define TRAINPKG_TRAINER_RUNTIME_CLUSTER_SPEC_RESOLVER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "trainer_runtime/cluster_info.h"

namespace trainpkg::runtime {

// nullopt when CLUSTER_SPEC is unset or empty. trial_id is task.trial, else
// CLOUD_ML_TRIAL_ID. InvalidArgument "CLUSTER_SPEC: <path>: <what>" when the
// JSON is malformed, a pool name is not workerpool0..3, workerpool0 has more
// than one replica, neither workerpool0 nor workerpool1 is present, or the
// task is not in the cluster.
absl::StatusOr<std::optional<ClusterInfo>> ResolveFromClusterSpec(const base::Environment& env);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_CLUSTER_SPEC_RESOLVER_H_
