#include "sdk/internal/launch_plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_context.h"
#include "jobspec/cluster_env.h"
#include "sdk/internal/env_expansion.h"

namespace trainpkg::sdk::internal {

absl::StatusOr<std::vector<ReplicaLaunch>> MakeLaunchPlan(const LaunchPlanRequest& request) {
  const std::span<const ReplicaPlan> plans = request.plans;
  if (request.ports.size() < plans.size() + 1) {
    return absl::InvalidArgumentError(absl::StrCat(request.ports.size(), " ports for ",
                                                   plans.size(),
                                                   " replicas; one each and one for MASTER_PORT"));
  }
  if (!request.hosts.empty() && request.hosts.size() != plans.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("hosts for ", request.hosts.size(), " of ", plans.size(), " replicas"));
  }
  if (!request.gpus.empty() && request.gpus.size() != plans.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU slices for ", request.gpus.size(), " of ", plans.size(), " replicas"));
  }
  // Every replica's address goes into every replica's CLUSTER_SPEC, so all
  // of them are known before the first env is made.
  std::vector<ReplicaLaunch> launches(plans.size());
  std::vector<std::vector<std::string>> addresses(request.spec->worker_pool_specs.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    launches[i].plan = &plans[i];
    // Loopback unless hosts are given: every replica shares it, on the
    // host's network or in the job's namespace alike.
    launches[i].address =
        absl::StrCat(request.hosts.empty() ? "127.0.0.1" : request.hosts[i], ":", request.ports[i]);
    addresses.at(static_cast<size_t>(plans[i].ref.pool)).push_back(launches[i].address);
  }
  for (size_t i = 0; i < plans.size(); ++i) {
    const ReplicaPlan& plan = plans[i];
    jobspec::ClusterEnvRequest env_request{.spec = *request.spec,
                                           .job_id = request.job_id,
                                           .project_id = request.project_id,
                                           .trial_id = "",
                                           .addresses = addresses,
                                           .replica = plan.ref,
                                           .job_secret = request.job_secret,
                                           .pytorch_master_port = request.ports[plans.size()]};
    TP_ASSIGN_OR_RETURN_WITH_CONTEXT(
        auto cluster_env, jobspec::MakeClusterEnv(env_request),
        absl::StrCat("Making the environment of replica ", plan.ref.Name()));
    if (!request.gpus.empty() && !request.gpus[i].empty()) {
      cluster_env.insert_or_assign("CUDA_VISIBLE_DEVICES", absl::StrJoin(request.gpus[i], ","));
    }
    if (plan.image.has_value()) {
      launches[i].env = std::move(cluster_env);
      continue;
    }
    std::map<std::string, std::string> env;
    if (!request.remote) env = *request.environment;
    for (auto& [name, value] : cluster_env) env.insert_or_assign(name, std::move(value));
    ApplyEnvVars(plan.env, env);
    launches[i].env = std::move(env);
  }
  return launches;
}

}  // namespace trainpkg::sdk::internal
