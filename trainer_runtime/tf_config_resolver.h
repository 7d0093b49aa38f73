// ClusterInfo from TF_CONFIG, as Vertex sets it for every multi-replica job
// and TensorFlow's TFConfigClusterResolver reads it (jobspec/cluster_env.h).
#ifndef TRAINPKG_TRAINER_RUNTIME_TF_CONFIG_RESOLVER_H_
#define TRAINPKG_TRAINER_RUNTIME_TF_CONFIG_RESOLVER_H_

#include <optional>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "trainer_runtime/cluster_info.h"

namespace trainpkg::runtime {

// nullopt when TF_CONFIG is unset or empty. Otherwise the cluster and task
// go through ClusterInfoFromTfCluster (cluster_info.h); trial_id is
// task.trial, else CLOUD_ML_TRIAL_ID. InvalidArgument "TF_CONFIG: <path>:
// <what>" when the JSON is malformed or the task does not fit the cluster.
absl::StatusOr<std::optional<ClusterInfo>> ResolveFromTfConfig(const base::Environment& env);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_TF_CONFIG_RESOLVER_H_
