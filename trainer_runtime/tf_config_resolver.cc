#include "trainer_runtime/tf_config_resolver.h"

#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/cluster_env.h"

namespace trainpkg::runtime {

absl::StatusOr<std::optional<ClusterInfo>> ResolveFromTfConfig(const base::Environment& env) {
  std::optional<std::string> text = env.Get("TF_CONFIG");
  if (!text.has_value() || text->empty()) return std::nullopt;
  TP_ASSIGN_OR_RETURN(jobspec::TfConfig config, jobspec::ParseTfConfig(*text));
  absl::StatusOr<ClusterInfo> info =
      ClusterInfoFromTfCluster(config.cluster, config.task_type, config.task_index);
  if (!info.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("TF_CONFIG: {}", std::string(info.status().message())));
  }
  info->source = "TF_CONFIG";
  info->trial_id = config.trial.empty() ? env.Get("CLOUD_ML_TRIAL_ID").value_or("") : config.trial;
  return *std::move(info);
}

}  // namespace trainpkg::runtime
