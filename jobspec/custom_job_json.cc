// CustomJob -> proto3 JSON, and the text-level entry points of
// custom_job_json.h. Reading JSON into the model is custom_job_from_json.cc.
#include "jobspec/custom_job_json.h"

#include <string>

#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/job_state.h"

namespace trainpkg::jobspec {
namespace {

using Json = nlohmann::json;

// Proto3 JSON omits fields that hold their default value.
void PutString(Json& object, const char* name, const std::string& value) {
  if (!value.empty()) object[name] = value;
}

void PutBool(Json& object, const char* name, bool value) {
  if (value) object[name] = true;
}

void PutStrings(Json& object, const char* name, const std::vector<std::string>& values) {
  if (!values.empty()) object[name] = values;
}

void PutStringMap(Json& object, const char* name, const std::map<std::string, std::string>& map) {
  if (!map.empty()) object[name] = map;
}

void PutTime(Json& object, const char* name, const std::optional<absl::Time>& time) {
  if (time.has_value()) object[name] = FormatTimestamp(*time);
}

void PutDuration(Json& object, const char* name, const std::optional<absl::Duration>& duration) {
  if (duration.has_value()) object[name] = jobspec::FormatDuration(*duration);
}

void PutEnv(Json& object, const std::vector<EnvVar>& env) {
  if (env.empty()) return;
  Json list = Json::array();
  for (const EnvVar& var : env) {
    Json item = Json::object();
    PutString(item, "name", var.name);
    PutString(item, "value", var.value);
    list.push_back(std::move(item));
  }
  object["env"] = std::move(list);
}

Json ContainerSpecToJson(const ContainerSpec& spec) {
  Json object = Json::object();
  PutString(object, "imageUri", spec.image_uri);
  PutStrings(object, "command", spec.command);
  PutStrings(object, "args", spec.args);
  PutEnv(object, spec.env);
  return object;
}

Json PythonPackageSpecToJson(const PythonPackageSpec& spec) {
  Json object = Json::object();
  PutString(object, "executorImageUri", spec.executor_image_uri);
  PutStrings(object, "packageUris", spec.package_uris);
  PutString(object, "pythonModule", spec.python_module);
  PutStrings(object, "args", spec.args);
  PutEnv(object, spec.env);
  return object;
}

Json ReservationAffinityToJson(const ReservationAffinity& affinity) {
  Json object = Json::object();
  PutString(object, "reservationAffinityType", affinity.reservation_affinity_type);
  PutString(object, "key", affinity.key);
  PutStrings(object, "values", affinity.values);
  return object;
}

Json MachineSpecToJson(const MachineSpec& spec) {
  Json object = Json::object();
  PutString(object, "machineType", spec.machine_type);
  PutString(object, "acceleratorType", spec.accelerator_type);
  if (spec.accelerator_count != 0) object["acceleratorCount"] = spec.accelerator_count;
  PutString(object, "gpuPartitionSize", spec.gpu_partition_size);
  PutString(object, "tpuTopology", spec.tpu_topology);
  if (spec.reservation_affinity.has_value()) {
    object["reservationAffinity"] = ReservationAffinityToJson(*spec.reservation_affinity);
  }
  return object;
}

Json DiskSpecToJson(const DiskSpec& spec) {
  Json object = Json::object();
  PutString(object, "bootDiskType", spec.boot_disk_type);
  if (spec.boot_disk_size_gb != 0) object["bootDiskSizeGb"] = spec.boot_disk_size_gb;
  return object;
}

Json NfsMountToJson(const NfsMount& mount) {
  Json object = Json::object();
  PutString(object, "server", mount.server);
  PutString(object, "path", mount.path);
  PutString(object, "mountPoint", mount.mount_point);
  return object;
}

Json SchedulingToJson(const Scheduling& scheduling) {
  Json object = Json::object();
  PutDuration(object, "timeout", scheduling.timeout);
  PutBool(object, "restartJobOnWorkerRestart", scheduling.restart_job_on_worker_restart);
  PutString(object, "strategy", scheduling.strategy);
  PutBool(object, "disableRetries", scheduling.disable_retries);
  PutDuration(object, "maxWaitDuration", scheduling.max_wait_duration);
  return object;
}

Json RpcStatusToJson(const RpcStatus& status) {
  Json object = Json::object();
  if (status.code != 0) object["code"] = status.code;
  PutString(object, "message", status.message);
  return object;
}

}  // namespace

Json WorkerPoolSpecToJson(const WorkerPoolSpec& pool) {
  Json object = Json::object();
  if (pool.container_spec.has_value()) {
    object["containerSpec"] = ContainerSpecToJson(*pool.container_spec);
  }
  if (pool.python_package_spec.has_value()) {
    object["pythonPackageSpec"] = PythonPackageSpecToJson(*pool.python_package_spec);
  }
  if (pool.machine_spec.has_value()) object["machineSpec"] = MachineSpecToJson(*pool.machine_spec);
  // int64 is a JSON string in proto3 JSON.
  if (pool.replica_count != 0) object["replicaCount"] = fmt::format("{}", pool.replica_count);
  if (!pool.nfs_mounts.empty()) {
    Json mounts = Json::array();
    for (const NfsMount& mount : pool.nfs_mounts) mounts.push_back(NfsMountToJson(mount));
    object["nfsMounts"] = std::move(mounts);
  }
  if (pool.disk_spec.has_value()) object["diskSpec"] = DiskSpecToJson(*pool.disk_spec);
  return object;
}

Json CustomJobSpecToJson(const CustomJobSpec& spec) {
  Json object = Json::object();
  PutString(object, "persistentResourceId", spec.persistent_resource_id);
  if (!spec.worker_pool_specs.empty()) {
    Json pools = Json::array();
    for (const WorkerPoolSpec& pool : spec.worker_pool_specs) {
      pools.push_back(WorkerPoolSpecToJson(pool));
    }
    object["workerPoolSpecs"] = std::move(pools);
  }
  if (spec.scheduling.has_value()) object["scheduling"] = SchedulingToJson(*spec.scheduling);
  PutString(object, "serviceAccount", spec.service_account);
  PutString(object, "network", spec.network);
  PutStrings(object, "reservedIpRanges", spec.reserved_ip_ranges);
  if (!spec.base_output_directory.empty()) {
    object["baseOutputDirectory"] = {{"outputUriPrefix", spec.base_output_directory}};
  }
  PutString(object, "protectedArtifactLocationId", spec.protected_artifact_location_id);
  PutString(object, "tensorboard", spec.tensorboard);
  PutBool(object, "enableWebAccess", spec.enable_web_access);
  PutBool(object, "enableDashboardAccess", spec.enable_dashboard_access);
  PutString(object, "experiment", spec.experiment);
  PutString(object, "experimentRun", spec.experiment_run);
  PutStrings(object, "models", spec.models);
  return object;
}

Json CustomJobToJson(const CustomJob& job) {
  Json object = Json::object();
  PutString(object, "name", job.name);
  PutString(object, "displayName", job.display_name);
  object["jobSpec"] = CustomJobSpecToJson(job.job_spec);
  if (job.state != JobState::kUnspecified) object["state"] = std::string(JobStateName(job.state));
  PutTime(object, "createTime", job.create_time);
  PutTime(object, "startTime", job.start_time);
  PutTime(object, "endTime", job.end_time);
  PutTime(object, "updateTime", job.update_time);
  if (job.error.has_value()) object["error"] = RpcStatusToJson(*job.error);
  PutStringMap(object, "labels", job.labels);
  if (!job.encryption_spec_kms_key_name.empty()) {
    object["encryptionSpec"] = {{"kmsKeyName", job.encryption_spec_kms_key_name}};
  }
  PutStringMap(object, "webAccessUris", job.web_access_uris);
  return object;
}

absl::StatusOr<CustomJob> ParseCustomJobJson(std::string_view text) {
  TP_ASSIGN_OR_RETURN(Json parsed, base::ParseJson(text));
  return CustomJobFromJson(parsed);
}

std::string FormatCustomJobJson(const CustomJob& job) {
  return CustomJobToJson(job).dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace trainpkg::jobspec
