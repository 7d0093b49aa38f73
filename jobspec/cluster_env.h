// The cluster environment Vertex AI injects into every replica, made by
// backends and parsed back by the trainer runtime (reference/vertex.md §3).
//
//   CLUSTER_SPEC  always: {"cluster":{"workerpool0":[...],...},"environment":"cloud",
//                 "task":{"type":"workerpool1","index":0[,"trial":"3"]},"job":{CustomJobSpec}}
//   TF_CONFIG     only when the job has more than one replica in total:
//                 {"cluster":{"chief":[...],"worker":[...],"ps":[...]},
//                  "task":{"type":"worker","index":0[,"trial":"3"]},"job":{...},"environment":"cloud"}
//                 pools map 0->chief, 1->worker, 2->ps, 3->evaluator; evaluator is
//                 never a key of "cluster".
//   AIP_MODEL_DIR, AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR
//                 when baseOutputDirectory is set: <base>/model/, <base>/checkpoints/,
//                 <base>/logs/; for a tuning trial <base>/<trial>/model/ and so on.
//   CLOUD_ML_JOB_ID always; CLOUD_ML_TRIAL_ID for trials; CLOUD_ML_PROJECT_ID
//                 when a project is known.
//   MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK
//                 PyTorch's env:// rendezvous, as AI Platform Training sets it for
//                 distributed PyTorch (reference/vertex.md "PyTorch env"), when the
//                 request has a pytorch_master_port: on the chief (pool 0) and the
//                 workers (pool 1) only. MASTER_ADDR is the chief's host, MASTER_PORT
//                 a port reserved for it there (never the chief's cluster port),
//                 WORLD_SIZE = chief + workers, RANK 0 for the chief and i + 1 for
//                 workerpool1-i: the rank trainer_runtime/cluster_info.h gives too.
//                 Parameter servers and evaluators are outside the process group
//                 (PyTorchJob has no such roles) and get none of the four.
//   TRAINPKG_JOB_SECRET  when the request has one (jobspec/job_secret.h): the
//                 job's shared secret, the same for every replica, that the
//                 replicas' RPCs carry. Not a Vertex variable: Vertex replicas
//                 get it through the pool's containerSpec.env.
// JSON is written compactly (no spaces), keys in the order shown.
#ifndef TRAINPKG_JOBSPEC_CLUSTER_ENV_H_
#define TRAINPKG_JOBSPEC_CLUSTER_ENV_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "jobspec/custom_job.h"
#include "jobspec/job_secret.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec {

// One replica of a job: worker pool 0..3 and its index within the pool.
struct ReplicaRef {
  int pool = 0;
  int64_t index = 0;
  std::string Name() const;  // "workerpool1-0", the name Vertex uses in logs and errors
  bool operator==(const ReplicaRef&) const = default;
};

// Vertex's pool -> TF task type: 0 chief, 1 worker, 2 ps, 3 evaluator.
std::string_view TfTaskTypeForPool(int pool);

struct ClusterEnvRequest {
  CustomJobSpec spec;
  std::string job_id;      // CLOUD_ML_JOB_ID
  std::string project_id;  // CLOUD_ML_PROJECT_ID; "" leaves it unset
  std::string trial_id;    // "" unless the job is a tuning trial
  // "host:port" of every replica: addresses[pool][index]. Placeholder pools
  // have no entries. REQUIRES: sizes match the spec's replica counts.
  std::vector<std::vector<std::string>> addresses;
  ReplicaRef replica;
  // TRAINPKG_JOB_SECRET for every replica (NewJobSecret, once per job);
  // "" leaves it unset.
  std::string job_secret;
  // MASTER_PORT: a port on the chief's host reserved for PyTorch's
  // rendezvous store, distinct from the chief's cluster port. 0 leaves the
  // four PyTorch variables unset (a backend that starts no replicas itself).
  int pytorch_master_port = 0;
};

// Variables for one replica. InvalidArgument when the replica or the
// addresses do not match the spec.
absl::StatusOr<std::map<std::string, std::string>> MakeClusterEnv(const ClusterEnvRequest& request);

// Parsed CLUSTER_SPEC.
struct ClusterSpecEnv {
  std::map<std::string, std::vector<std::string>> cluster;  // "workerpool0" -> addresses
  std::string environment;                                  // "cloud"
  std::string task_type;                                    // "workerpool1"
  int64_t task_index = 0;
  std::string trial;  // "" when absent
  nlohmann::json job;  // the CustomJobSpec; accepted as an object or a JSON string
};

// Parsed TF_CONFIG.
struct TfConfig {
  std::map<std::string, std::vector<std::string>> cluster;  // "chief"/"worker"/"ps" -> addresses
  std::string task_type;                                    // "chief", "worker", "ps", "evaluator"
  int64_t task_index = 0;
  std::string trial;
  std::string environment;
  std::string rpc_layer;
  nlohmann::json job;
};

absl::StatusOr<ClusterSpecEnv> ParseClusterSpec(std::string_view text);
absl::StatusOr<TfConfig> ParseTfConfig(std::string_view text);
std::string FormatClusterSpec(const ClusterSpecEnv& spec);
std::string FormatTfConfig(const TfConfig& config);

// The AIP_* output directories for a base output directory (a '/' is
// appended when missing) and an optional trial id.
struct OutputDirs {
  std::string model_dir;
  std::string checkpoint_dir;
  std::string tensorboard_log_dir;
};
OutputDirs OutputDirsFor(std::string_view base_output_directory, std::string_view trial_id);

// What a replica can read back from its environment besides the cluster.
struct VertexJobEnv {
  std::string job_id;      // CLOUD_ML_JOB_ID
  std::string trial_id;    // CLOUD_ML_TRIAL_ID
  std::string project_id;  // CLOUD_ML_PROJECT_ID
  OutputDirs dirs;         // empty strings when AIP_* are unset
};
VertexJobEnv ReadVertexJobEnv(const base::Environment& env);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_CLUSTER_ENV_H_
