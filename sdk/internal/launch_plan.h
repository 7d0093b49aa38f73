// What a supervised backend starts for each replica of a job, computed
// before anything starts and without touching the machine: its address, the
// cluster env it receives (CLUSTER_SPEC, TF_CONFIG, the PyTorch variables,
// CUDA_VISIBLE_DEVICES for its GPUs), and, for a host process, its whole
// environment. The local backend (LocalProcessBackend) reserves loopback
// ports and assigns the GPUs, asks for the plan, then prepares containers and
// starts processes from it; the SSH backend (sdk/ssh) gives each replica its
// host's address and ports reserved on that host.
//
//   TP_ASSIGN_OR_RETURN(std::vector<ReplicaLaunch> launches,
//                       MakeLaunchPlan({.spec = spec, .plans = plans, .ports = ports, ...}));
#ifndef TRAINPKG_SDK_INTERNAL_LAUNCH_PLAN_H_
#define TRAINPKG_SDK_INTERNAL_LAUNCH_PLAN_H_

#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/replica_plan.h"

namespace trainpkg::sdk::internal {

struct LaunchPlanRequest {
  const jobspec::CustomJobSpec* spec = nullptr;
  std::span<const ReplicaPlan> plans;  // PlanReplicas(*spec)
  std::string job_id;
  std::string project_id;
  std::string job_secret;
  // The environment host processes inherit (containers get only their
  // image's and the job's variables).
  const std::map<std::string, std::string>* environment = nullptr;
  // One port per plan, in plan order, then the chief's PyTorch rendezvous
  // port (MASTER_PORT, on the chief's host).
  std::span<const int> ports;
  // The GPU indices each plan gets (AssignGpus), in plan order; empty: none.
  std::span<const std::vector<std::string>> gpus;
  // The host address of each plan, in plan order (the SSH backend's hosts);
  // empty: every replica is on 127.0.0.1.
  std::span<const std::string> hosts;
  // True for replicas started on another machine (the SSH backend): a host
  // process gets the cluster env and the pool's env entries only, and the
  // remote login environment supplies the rest; `environment` is unused.
  bool remote = false;
};

struct ReplicaLaunch {
  const ReplicaPlan* plan = nullptr;
  std::string address;  // "127.0.0.1:<port>", or "<host>:<port>" with hosts
  // A container's cluster env (PrepareContainerReplica merges it with the
  // image's and the pool's variables); a host process's whole environment:
  // the inherited one, the cluster env over it, then the pool's env entries
  // expanded against the result.
  std::map<std::string, std::string> env;
};

// One launch per plan, in plan order. InvalidArgument when there are fewer
// ports than plans + 1, hosts given for some plans but not all, or GPU
// slices for some plans but not all; Internal
// naming the replica when its cluster env cannot be made (a plan that does
// not match the spec).
absl::StatusOr<std::vector<ReplicaLaunch>> MakeLaunchPlan(const LaunchPlanRequest& request);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_LAUNCH_PLAN_H_
