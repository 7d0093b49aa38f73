#include "sdk/k8s/pod_logs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "sdk/k8s/internal/json_text.h"
#include "sdk/k8s/job_manifests.h"

namespace trainpkg::sdk::k8s {
namespace {

using Json = nlohmann::json;

std::string Label(const Json& pod, const char* name) {
  const Json labels = pod.value(Json::json_pointer("/metadata/labels"), Json::object());
  auto it = labels.find(name);
  return it != labels.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string ReplicaOfPod(const Json& pod) {
  const std::string pool = Label(pod, kPoolLabel);
  if (pool.empty()) return "";
  std::string index = Label(pod, kJobSetIndexLabel);
  if (index.empty()) index = Label(pod, kKubeflowIndexLabel);
  return absl::StrCat(pool, "-", index.empty() ? "0" : index);
}

absl::StatusOr<std::vector<PodLog>> ReadJobPodLogs(K8sClient& client,
                                                   std::string_view kubernetes_namespace,
                                                   std::string_view job_name,
                                                   std::string_view replica) {
  TP_ASSIGN_OR_RETURN(
      std::vector<Json> pods,
      client.ListPods(kubernetes_namespace, absl::StrCat(kJobLabel, "=", std::string(job_name))));
  struct Container {
    std::string pod, container, replica;
  };
  std::vector<Container> containers;
  for (const Json& pod : pods) {
    // The trainer is the first (and only) container of the pods trainpkg renders.
    const Json first = pod.value(Json::json_pointer("/spec/containers/0"), Json::object());
    const std::string name = pod.value(Json::json_pointer("/metadata/name"), std::string());
    const std::string container = internal::Text(first, "name");
    if (name.empty() || container.empty()) continue;
    std::string of = ReplicaOfPod(pod);
    if (!replica.empty() && of != replica) continue;
    containers.push_back({name, container, std::move(of)});
  }
  // By pod name: the API's list order is not stable from one call to the next.
  std::sort(containers.begin(), containers.end(),
            [](const Container& a, const Container& b) { return a.pod < b.pod; });
  std::vector<PodLog> logs;
  for (Container& c : containers) {
    logs.push_back({.pod = c.pod,
                    .replica = std::move(c.replica),
                    .text = client.ReadPodLog(kubernetes_namespace, c.pod, c.container)});
  }
  return logs;
}

}  // namespace trainpkg::sdk::k8s
