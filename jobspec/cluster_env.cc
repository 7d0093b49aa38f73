#include "jobspec/cluster_env.h"

#include <limits>
#include <string>
#include <utility>

#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"

namespace trainpkg::jobspec {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr size_t kMaxPools = 4;
constexpr std::string_view kEnvironmentCloud = "cloud";

std::string PoolName(int pool) { return fmt::format("workerpool{}", pool); }

// "VAR: path: what", or "VAR: what" at the root.
absl::Status Invalid(std::string_view var, std::string_view path, std::string_view what) {
  if (path.empty()) return absl::InvalidArgumentError(fmt::format("{}: {}", var, what));
  return absl::InvalidArgumentError(fmt::format("{}: {}: {}", var, path, what));
}

absl::StatusOr<nlohmann::json> ParseObject(std::string_view var, std::string_view path,
                                           std::string_view text) {
  absl::StatusOr<nlohmann::json> json = base::ParseJson(text);
  if (!json.ok()) return Invalid(var, path, std::string(json.status().message()));
  if (!json->is_object()) return Invalid(var, path, "expected a JSON object");
  return json;
}

// Shared by CLUSTER_SPEC and TF_CONFIG: the fields both carry.
struct CommonFields {
  std::map<std::string, std::vector<std::string>> cluster;
  std::string task_type;
  int64_t task_index = 0;
  std::string trial;
  std::string environment;
  nlohmann::json job;
};

absl::Status ReadCluster(std::string_view var, const nlohmann::json& root,
                         std::map<std::string, std::vector<std::string>>& out) {
  auto it = root.find("cluster");
  if (it == root.end()) return Invalid(var, "cluster", "missing");
  if (!it->is_object()) return Invalid(var, "cluster", "expected an object");
  for (const auto& [name, addresses] : it->items()) {
    std::string path = fmt::format("cluster.{}", name);
    if (!addresses.is_array()) return Invalid(var, path, "expected an array of \"host:port\"");
    std::vector<std::string>& list = out[name];
    for (size_t i = 0; i < addresses.size(); ++i) {
      if (!addresses[i].is_string()) {
        return Invalid(var, fmt::format("{}[{}]", path, i), "expected a string");
      }
      list.push_back(addresses[i].get<std::string>());
    }
  }
  return absl::OkStatus();
}

absl::Status ReadTask(std::string_view var, const nlohmann::json& root, CommonFields& out) {
  auto task = root.find("task");
  if (task == root.end()) return Invalid(var, "task", "missing");
  if (!task->is_object()) return Invalid(var, "task", "expected an object");

  auto type = task->find("type");
  if (type == task->end()) return Invalid(var, "task.type", "missing");
  if (!type->is_string()) return Invalid(var, "task.type", "expected a string");
  out.task_type = type->get<std::string>();

  auto index = task->find("index");
  if (index == task->end()) return Invalid(var, "task.index", "missing");
  bool non_negative =
      index->is_number_unsigned() || (index->is_number_integer() && index->get<int64_t>() >= 0);
  if (!non_negative ||
      index->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Invalid(var, "task.index", "expected a non-negative integer");
  }
  out.task_index = index->get<int64_t>();

  auto trial = task->find("trial");
  if (trial == task->end() || trial->is_null()) return absl::OkStatus();
  if (trial->is_string()) {
    out.trial = trial->get<std::string>();
  } else if (trial->is_number_unsigned()) {
    out.trial = std::to_string(trial->get<uint64_t>());
  } else {
    return Invalid(var, "task.trial", "expected a string");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadOptionalString(std::string_view var, const nlohmann::json& root,
                                               std::string_view key) {
  auto it = root.find(key);
  if (it == root.end() || it->is_null()) return std::string();
  if (!it->is_string()) return Invalid(var, key, "expected a string");
  return it->get<std::string>();
}

// `job` is an object, or (as some launchers write it) a string holding one.
absl::StatusOr<nlohmann::json> ReadJob(std::string_view var, const nlohmann::json& root) {
  auto it = root.find("job");
  if (it == root.end() || it->is_null()) return nlohmann::json();
  if (it->is_object()) return *it;
  if (it->is_string()) return ParseObject(var, "job", it->get_ref<const std::string&>());
  return Invalid(var, "job", "expected an object or a JSON string");
}

absl::StatusOr<CommonFields> ReadCommon(std::string_view var, const nlohmann::json& root) {
  CommonFields out;
  if (absl::Status s = ReadCluster(var, root, out.cluster); !s.ok()) return s;
  if (absl::Status s = ReadTask(var, root, out); !s.ok()) return s;
  TP_ASSIGN_OR_RETURN(std::string environment, ReadOptionalString(var, root, "environment"));
  out.environment = std::move(environment);
  TP_ASSIGN_OR_RETURN(nlohmann::json job, ReadJob(var, root));
  out.job = std::move(job);
  return out;
}

OrderedJson TaskJson(std::string_view type, int64_t index, std::string_view trial) {
  OrderedJson task = OrderedJson::object();
  task["type"] = type;
  task["index"] = index;
  if (!trial.empty()) task["trial"] = trial;
  return task;
}

// "host" of "host:port"; "[v6]:port" gives "v6".
std::string_view HostOf(std::string_view address) {
  size_t colon = address.rfind(':');
  std::string_view host = colon == std::string_view::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

// The port of "host:port"; "" when there is none.
std::string_view PortOf(std::string_view address) {
  size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || address.find(']', colon) != std::string_view::npos) {
    return {};
  }
  return address.substr(colon + 1);
}

// MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK for a chief or worker.
absl::Status AddPyTorchEnv(const ClusterEnvRequest& request,
                           std::map<std::string, std::string>& env) {
  const ReplicaRef& replica = request.replica;
  // Only the chief and the workers form PyTorch's world: rank 0 is the
  // chief, worker i is rank i + 1, as AI Platform Training numbers them.
  if (request.pytorch_master_port == 0 || replica.pool > 1) return absl::OkStatus();
  if (request.pytorch_master_port < 0 || request.pytorch_master_port > 65535) {
    return absl::InvalidArgumentError(fmt::format(
        "pytorch_master_port: {} is not a TCP port (1..65535)", request.pytorch_master_port));
  }
  if (request.addresses.empty() || request.addresses[0].size() != 1) {
    return absl::InvalidArgumentError(
        "workerPoolSpecs[0]: the PyTorch variables need exactly one chief (its host is "
        "MASTER_ADDR)");
  }
  const std::string& chief = request.addresses[0][0];
  // The chief's cluster port is its own program's to listen on; PyTorch's
  // rendezvous store binds MASTER_PORT on the same host.
  if (PortOf(chief) == std::to_string(request.pytorch_master_port)) {
    return absl::InvalidArgumentError(
        fmt::format("pytorch_master_port: {} is the chief's cluster port ({}); MASTER_PORT "
                    "needs a port of its own",
                    request.pytorch_master_port, chief));
  }
  const int64_t workers =
      request.spec.worker_pool_specs.size() > 1 ? request.spec.worker_pool_specs[1].replica_count
                                                : 0;
  env["MASTER_ADDR"] = std::string(HostOf(chief));
  env["MASTER_PORT"] = std::to_string(request.pytorch_master_port);
  env["WORLD_SIZE"] = std::to_string(1 + workers);
  env["RANK"] = std::to_string(replica.pool == 0 ? 0 : replica.index + 1);
  return absl::OkStatus();
}

// Compact; invalid UTF-8 is replaced rather than thrown.
std::string Dump(const OrderedJson& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string ReplicaRef::Name() const { return fmt::format("workerpool{}-{}", pool, index); }

std::string_view TfTaskTypeForPool(int pool) {
  switch (pool) {
    case 0:
      return "chief";
    case 1:
      return "worker";
    case 2:
      return "ps";
    case 3:
      return "evaluator";
    default:
      return "";
  }
}

absl::StatusOr<std::map<std::string, std::string>> MakeClusterEnv(
    const ClusterEnvRequest& request) {
  const std::vector<WorkerPoolSpec>& pools = request.spec.worker_pool_specs;
  if (pools.size() > kMaxPools) {
    return absl::InvalidArgumentError(fmt::format(
        "workerPoolSpecs: {} worker pools; Vertex allows at most {}", pools.size(), kMaxPools));
  }
  if (request.addresses.size() != pools.size()) {
    return absl::InvalidArgumentError(fmt::format("addresses: {} pools given, the spec has {}",
                                                  request.addresses.size(), pools.size()));
  }
  int64_t total_replicas = 0;
  for (size_t p = 0; p < pools.size(); ++p) {
    int64_t count = pools[p].replica_count;
    if (count < 0) {
      return absl::InvalidArgumentError(
          fmt::format("workerPoolSpecs[{}].replicaCount: {} is negative", p, count));
    }
    if (static_cast<int64_t>(request.addresses[p].size()) != count) {
      return absl::InvalidArgumentError(fmt::format("addresses[{}]: {} addresses for a pool of {}",
                                                    p, request.addresses[p].size(), count));
    }
    total_replicas += count;
  }
  const ReplicaRef& replica = request.replica;
  if (replica.pool < 0 || static_cast<size_t>(replica.pool) >= pools.size() || replica.index < 0 ||
      replica.index >= pools[replica.pool].replica_count) {
    return absl::InvalidArgumentError(
        fmt::format("replica {} is not part of the job", replica.Name()));
  }

  nlohmann::json job = CustomJobSpecToJson(request.spec);
  std::map<std::string, std::string> env;

  ClusterSpecEnv cluster_spec;
  for (size_t p = 0; p < pools.size(); ++p) {
    // The distributed training guide: CLUSTER_SPEC lists only the pools "you
    // specified"; an empty placeholder pool has no key.
    if (pools[p].replica_count == 0) continue;
    cluster_spec.cluster[PoolName(static_cast<int>(p))] = request.addresses[p];
  }
  cluster_spec.environment = kEnvironmentCloud;
  cluster_spec.task_type = PoolName(replica.pool);
  cluster_spec.task_index = replica.index;
  cluster_spec.trial = request.trial_id;
  cluster_spec.job = job;
  // Set on every replica, single-replica jobs included (python-aiplatform:
  // "variables set for any Vertex training run").
  env["CLUSTER_SPEC"] = FormatClusterSpec(cluster_spec);

  // TF_CONFIG only for jobs of more than one replica: "Agent Platform does
  // not set TF_CONFIG for single-replica training jobs."
  if (total_replicas > 1) {
    TfConfig tf_config;
    // Its cluster "never contains evaluator as a key"; an evaluator finds its
    // role in task.type alone.
    for (size_t p = 0; p < pools.size() && p < 3; ++p) {  // pool 3, the evaluator, is left out
      if (pools[p].replica_count == 0) continue;
      tf_config.cluster[std::string(TfTaskTypeForPool(static_cast<int>(p)))] = request.addresses[p];
    }
    tf_config.task_type = TfTaskTypeForPool(replica.pool);
    tf_config.task_index = replica.index;
    tf_config.trial = request.trial_id;
    tf_config.environment = kEnvironmentCloud;
    tf_config.job = std::move(job);
    env["TF_CONFIG"] = FormatTfConfig(tf_config);
  }

  if (!request.spec.base_output_directory.empty()) {
    OutputDirs dirs = OutputDirsFor(request.spec.base_output_directory, request.trial_id);
    env["AIP_MODEL_DIR"] = dirs.model_dir;
    env["AIP_CHECKPOINT_DIR"] = dirs.checkpoint_dir;
    env["AIP_TENSORBOARD_LOG_DIR"] = dirs.tensorboard_log_dir;
  }
  env["CLOUD_ML_JOB_ID"] = request.job_id;
  if (!request.trial_id.empty()) env["CLOUD_ML_TRIAL_ID"] = request.trial_id;
  if (!request.project_id.empty()) env["CLOUD_ML_PROJECT_ID"] = request.project_id;
  if (!request.job_secret.empty()) env[kJobSecretEnv] = request.job_secret;
  TP_RETURN_IF_ERROR(AddPyTorchEnv(request, env));
  return env;
}

absl::StatusOr<ClusterSpecEnv> ParseClusterSpec(std::string_view text) {
  constexpr std::string_view kVar = "CLUSTER_SPEC";
  TP_ASSIGN_OR_RETURN(nlohmann::json root, ParseObject(kVar, "", text));
  TP_ASSIGN_OR_RETURN(CommonFields common, ReadCommon(kVar, root));
  ClusterSpecEnv out;
  out.cluster = std::move(common.cluster);
  out.environment = std::move(common.environment);
  out.task_type = std::move(common.task_type);
  out.task_index = common.task_index;
  out.trial = std::move(common.trial);
  out.job = std::move(common.job);
  return out;
}

absl::StatusOr<TfConfig> ParseTfConfig(std::string_view text) {
  constexpr std::string_view kVar = "TF_CONFIG";
  TP_ASSIGN_OR_RETURN(nlohmann::json root, ParseObject(kVar, "", text));
  TP_ASSIGN_OR_RETURN(CommonFields common, ReadCommon(kVar, root));
  TP_ASSIGN_OR_RETURN(std::string rpc_layer, ReadOptionalString(kVar, root, "rpc_layer"));
  TfConfig out;
  out.cluster = std::move(common.cluster);
  out.task_type = std::move(common.task_type);
  out.task_index = common.task_index;
  out.trial = std::move(common.trial);
  out.environment = std::move(common.environment);
  out.rpc_layer = std::move(rpc_layer);
  out.job = std::move(common.job);
  return out;
}

std::string FormatClusterSpec(const ClusterSpecEnv& spec) {
  OrderedJson root = OrderedJson::object();
  root["cluster"] = OrderedJson::object();
  for (const auto& [pool, addresses] : spec.cluster) root["cluster"][pool] = addresses;
  if (!spec.environment.empty()) root["environment"] = spec.environment;
  root["task"] = TaskJson(spec.task_type, spec.task_index, spec.trial);
  if (!spec.job.is_null()) root["job"] = OrderedJson(spec.job);
  return Dump(root);
}

std::string FormatTfConfig(const TfConfig& config) {
  OrderedJson root = OrderedJson::object();
  OrderedJson& cluster = root["cluster"] = OrderedJson::object();
  // The training roles first, in pool order; anything else after, sorted.
  constexpr std::string_view kRoles[] = {"chief", "worker", "ps"};
  for (std::string_view role : kRoles) {
    auto it = config.cluster.find(std::string(role));
    if (it != config.cluster.end()) cluster[it->first] = it->second;
  }
  for (const auto& [name, addresses] : config.cluster) {
    if (!cluster.contains(name)) cluster[name] = addresses;
  }
  root["task"] = TaskJson(config.task_type, config.task_index, config.trial);
  if (!config.job.is_null()) root["job"] = OrderedJson(config.job);
  if (!config.environment.empty()) root["environment"] = config.environment;
  if (!config.rpc_layer.empty()) root["rpc_layer"] = config.rpc_layer;
  return Dump(root);
}

OutputDirs OutputDirsFor(std::string_view base_output_directory, std::string_view trial_id) {
  if (base_output_directory.empty()) return OutputDirs{};
  std::string base(base_output_directory);
  // GcsDestination.outputUriPrefix: "If the uri doesn't end with '/', a '/'
  // will be automatically appended."
  if (!base.ends_with('/')) base += '/';
  // A tuning trial's child job gets "a subdirectory of name [id][Trial.id]"
  // under the parent's baseOutputDirectory.
  if (!trial_id.empty()) base += fmt::format("{}/", trial_id);
  return OutputDirs{
      .model_dir = base + "model/",
      .checkpoint_dir = base + "checkpoints/",
      .tensorboard_log_dir = base + "logs/",
  };
}

VertexJobEnv ReadVertexJobEnv(const base::Environment& env) {
  auto get = [&env](std::string_view name) { return env.Get(name).value_or(""); };
  return VertexJobEnv{
      .job_id = get("CLOUD_ML_JOB_ID"),
      .trial_id = get("CLOUD_ML_TRIAL_ID"),
      .project_id = get("CLOUD_ML_PROJECT_ID"),
      .dirs =
          OutputDirs{
              .model_dir = get("AIP_MODEL_DIR"),
              .checkpoint_dir = get("AIP_CHECKPOINT_DIR"),
              .tensorboard_log_dir = get("AIP_TENSORBOARD_LOG_DIR"),
          },
  };
}

}  // namespace trainpkg::jobspec
