// The logs of a job's pods, read through the API server.
#ifndef TRAINPKG_SDK_K8S_POD_LOGS_H_
#define TRAINPKG_SDK_K8S_POD_LOGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sdk/k8s/k8s_client.h"

namespace trainpkg::sdk::k8s {

struct PodLog {
  std::string pod;
  std::string replica;                 // "workerpool1-0"; "" when the pod's labels do not say
  absl::StatusOr<std::string> text{};  // the first container's whole log, or why not
};

// The replica a pod of ours runs: "<pool label>-<index label>" (job_manifests.h),
// index 0 when the pod carries no index label; "" without a pool label.
std::string ReplicaOfPod(const nlohmann::json& pod);

// The logs of the pods labelled kJobLabel=<job_name> in `kubernetes_namespace`,
// in pod name order; with `replica` non-empty only that replica's pods.
// Errors: listing the pods'; a log that cannot be read is that PodLog's text.
absl::StatusOr<std::vector<PodLog>> ReadJobPodLogs(K8sClient& client,
                                                   std::string_view kubernetes_namespace,
                                                   std::string_view job_name,
                                                   std::string_view replica = "");

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_POD_LOGS_H_
