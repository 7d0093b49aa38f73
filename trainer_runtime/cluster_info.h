// Who this process is in a distributed training job, whichever launcher
// started it: Vertex (TF_CONFIG, CLUSTER_SPEC), torchrun or Slurm.
//
// One rule gives rank, world size and chief for every launcher. It is
// TensorFlow's (multi_worker_util.py): the chief counts as a worker;
//   chief          -> rank 0
//   worker i       -> rank i + (1 if the cluster has a chief, else 0)
//   world_size     =  #chief + #worker
//   is_chief       =  rank == 0, so with no chief, worker 0 is the chief.
// ps and evaluator tasks are outside the collective: rank is -1, world_size is
// still the size of the collective (so they know how many workers there are),
// and is_chief is false (TF calls an evaluator the chief of its own one-task
// job; here it is not, so it never writes the job's model directory).
// torchrun and Slurm processes are all "worker"s with task_index = rank.
//
//   auto info = ResolveClusterInfo(base::ProcessEnvironment());
//   if (!info.ok()) { ... }   // a variable was set but malformed
//   if (info->is_chief) { ... }
#ifndef TRAINPKG_TRAINER_RUNTIME_CLUSTER_INFO_H_
#define TRAINPKG_TRAINER_RUNTIME_CLUSTER_INFO_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/environment.h"

namespace trainpkg::runtime {

struct ClusterInfo {
  std::string source;      // resolver: "TF_CONFIG", "CLUSTER_SPEC", "torchrun", "slurm", "single"
  std::string task_type;   // "chief", "worker", "ps" or "evaluator"
  int64_t task_index = 0;  // index within task_type
  int64_t rank = 0;        // 0..world_size-1; -1 for ps and evaluator
  int64_t world_size = 1;  // members of the collective (chief + workers)
  bool is_chief = true;
  // "host:port" of rank 0; "" for a single process.
  std::string coordinator_address;
  // "host:port" of every collective member, indexed by rank; empty when the
  // launcher does not say (torchrun names only rank 0) or for a single process.
  std::vector<std::string> worker_addresses;
  std::vector<std::string> ps_addresses;  // parameter servers, by index
  // Index among the collective's processes on this host: the number of lower
  // ranks whose address has the same host (torchrun: LOCAL_RANK); 0 for ps
  // and evaluator.
  int64_t local_rank = 0;
  std::string trial_id;  // hyperparameter-tuning trial; "" outside a trial
  // TRAINPKG_JOB_SECRET (jobspec/job_secret.h), whichever launcher: what
  // the job's RPCs carry; "" when unset (servers then listen on loopback
  // addresses only).
  std::string job_secret;
  // TRAINPKG_COLLECTIVES as set ("auto", "gloo", "shm"; "" when unset): the
  // host-memory collectives' transport (collectives/cpu_communicator.h),
  // checked where a communicator is made.
  std::string collectives;

  bool in_collective() const { return rank >= 0; }
};

// A TF-style cluster: task type ("chief", "worker", "ps", "evaluator"; other
// keys are ignored) -> "host:port" addresses.
using TfCluster = std::map<std::string, std::vector<std::string>>;

// Applies the rule above to a TF-style cluster and this task. Fills every
// field except source and trial_id. InvalidArgument (message starts with the
// JSON path: "task.type: ...", "task.index: ...", "cluster.chief: ...") when
// the task type is unknown, the cluster has more than one chief or neither
// chief nor worker, or the index is outside its task type's list.
absl::StatusOr<ClusterInfo> ClusterInfoFromTfCluster(const TfCluster& cluster,
                                                     std::string_view task_type,
                                                     int64_t task_index);

// Reads the first launcher whose variables are present, in this order:
// TF_CONFIG, CLUSTER_SPEC, torchrun (RANK), Slurm (SLURM_PROCID); a variable
// set to "" counts as unset. With none of them, a single process (source
// "single", chief, rank 0 of 1). The
// trial id comes from the task's "trial" or else CLOUD_ML_TRIAL_ID; the job
// secret from TRAINPKG_JOB_SECRET.
// InvalidArgument, naming the variable and what is wrong, when the chosen
// launcher's variables are malformed (later launchers are not tried then)
// or TRAINPKG_JOB_SECRET is set but not a valid secret.
absl::StatusOr<ClusterInfo> ResolveClusterInfo(const base::Environment& env);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_CLUSTER_INFO_H_
