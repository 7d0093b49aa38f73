#include "sdk/k8s/internal/pool_env.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/status_macros.h"

namespace trainpkg::sdk::k8s::internal {
namespace {

// The value that, with $(`variable`) expanded to base + i, gives values[i]
// for every i: values[0] split around an occurrence of `base`; nullopt when
// no split fits every value.
std::optional<std::string> CountingTemplate(const std::vector<std::string>& values, int64_t base,
                                            const char* variable) {
  const std::string& first = values[0];
  const std::string number = absl::StrCat(base);
  for (size_t at = first.find(number); at != std::string::npos; at = first.find(number, at + 1)) {
    const std::string head = first.substr(0, at);
    const std::string tail = first.substr(at + number.size());
    bool fits = true;
    for (size_t i = 1; i < values.size() && fits; ++i) {
      fits = values[i] == absl::StrCat(head, base + static_cast<int64_t>(i), tail);
    }
    if (fits) return absl::StrCat(head, "$(", variable, ")", tail);
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<nlohmann::json> MakePoolEnv(const PoolEnvRequest& request) {
  const int64_t replicas = request.cluster.spec.worker_pool_specs.at(request.pool).replica_count;
  std::map<std::string, std::vector<std::string>> values;
  for (int64_t i = 0; i < replicas; ++i) {
    jobspec::ClusterEnvRequest one = request.cluster;
    one.replica = {.pool = request.pool, .index = i};
    TP_ASSIGN_OR_RETURN(auto env, jobspec::MakeClusterEnv(one));
    // The kubelet reads "$$" as "$", so no "$(" of the values is expanded.
    for (auto& [name, value] : env)
      values[name].push_back(absl::StrReplaceAll(value, {{"$", "$$"}}));
  }
  nlohmann::json list = nlohmann::json::array();
  // One pod template serves every replica of the pool: what differs between
  // them is derived from the pod's index label (downward API).
  if (replicas > 1) {
    list.push_back(
        {{"name", kReplicaIndexVariable},
         {"valueFrom",
          {{"fieldRef",
            {{"fieldPath", absl::StrCat("metadata.labels['", request.index_label, "']")}}}}}});
  }
  bool uses_global_index = false;
  for (const auto& [name, per_replica] : values) {
    if (request.omit.contains(name)) continue;
    std::optional<std::string> value;
    // A named reference: clang 14 cannot capture a structured binding.
    const std::string& first = per_replica[0];
    if (std::all_of(per_replica.begin(), per_replica.end(),
                    [&first](const std::string& v) { return v == first; })) {
      value = first;
    }
    if (!value) value = CountingTemplate(per_replica, 0, kReplicaIndexVariable);
    if (!value && !request.global_index_label.empty()) {
      value = CountingTemplate(per_replica, request.global_index_offset, kGlobalIndexVariable);
      uses_global_index |= value.has_value();
    }
    if (!value) {
      return absl::InternalError(absl::StrCat("the value of ", name,
                                              " differs between the replicas of workerpool",
                                              request.pool, " by more than their index"));
    }
    list.push_back({{"name", name}, {"value", *std::move(value)}});
  }
  if (uses_global_index) {
    // Before the values that refer to it: the kubelet expands only
    // variables defined earlier in the list.
    const nlohmann::json global = {
        {"name", kGlobalIndexVariable},
        {"valueFrom",
         {{"fieldRef",
           {{"fieldPath",
             absl::StrCat("metadata.labels['", request.global_index_label, "']")}}}}}};
    list.insert(list.begin() + (replicas > 1 ? 1 : 0), global);
  }
  return list;
}

}  // namespace trainpkg::sdk::k8s::internal
