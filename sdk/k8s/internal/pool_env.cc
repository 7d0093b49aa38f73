#include "sdk/k8s/internal/pool_env.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/status_macros.h"

namespace trainpkg::sdk::k8s::internal {
namespace {

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

size_t CommonSuffix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

// The one value that, with $(TRAINPKG_REPLICA_INDEX) expanded to i, gives
// values[i] for every i; Internal when there is none.
absl::StatusOr<std::string> IndexTemplate(const std::string& name,
                                          const std::vector<std::string>& values) {
  const std::string& first = values[0];
  if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == first; })) {
    return first;
  }
  size_t prefix = first.size();
  size_t suffix = first.size();
  for (const std::string& v : values) {
    prefix = std::min(prefix, CommonPrefix(first, v));
    suffix = std::min(suffix, CommonSuffix(first, v));
  }
  suffix = std::min(suffix, first.size() - prefix);
  const std::string head = first.substr(0, prefix);
  const std::string tail = first.substr(first.size() - suffix);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != absl::StrCat(head, i, tail)) {
      return absl::InternalError(absl::StrCat("the value of ", name, " for replica ", i,
                                              " differs from replica 0's by more than the index"));
    }
  }
  return absl::StrCat(head, "$(", kReplicaIndexVariable, ")", tail);
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
  if (replicas > 1) {
    list.push_back(
        {{"name", kReplicaIndexVariable},
         {"valueFrom",
          {{"fieldRef",
            {{"fieldPath", absl::StrCat("metadata.labels['", request.index_label, "']")}}}}}});
  }
  for (const auto& [name, per_replica] : values) {
    if (request.omit.contains(name)) continue;
    TP_ASSIGN_OR_RETURN(std::string value, IndexTemplate(name, per_replica));
    list.push_back({{"name", name}, {"value", value}});
  }
  return list;
}

}  // namespace trainpkg::sdk::k8s::internal
