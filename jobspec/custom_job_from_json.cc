// proto3 JSON -> CustomJob: the *FromJson functions of custom_job_json.h.
#include <string>
#include <utility>

#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/internal/vertex_json.h"
#include "jobspec/job_state.h"

namespace trainpkg::jobspec {
namespace {

using base::DescribeJson;
using base::JsonFields;
using base::JsonObjectReader;
using internal::kVertexJson;
using internal::ReadDuration;
using internal::ReadEnum;
using internal::ReadTimestamp;
using Json = nlohmann::json;

absl::StatusOr<EnvVar> EnvVarFromJson(const Json& value, const std::string& path) {
  static const JsonFields kFields{{"name", "value"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, path, kVertexJson, kFields));
  EnvVar var;
  TP_RETURN_IF_ERROR(reader.ReadString("name", &var.name));
  TP_RETURN_IF_ERROR(reader.ReadString("value", &var.value));
  return var;
}

absl::Status ReadEnv(const JsonObjectReader& reader, std::vector<EnvVar>* env) {
  return reader.ForEachElement("env", [env](const Json& value, const std::string& path) {
    TP_ASSIGN_OR_RETURN(EnvVar var, EnvVarFromJson(value, path));
    env->push_back(std::move(var));
    return absl::OkStatus();
  });
}

absl::StatusOr<ContainerSpec> ContainerSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"imageUri", "command", "args", "env"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  ContainerSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadString("imageUri", &spec.image_uri));
  TP_RETURN_IF_ERROR(reader.ReadStringList("command", &spec.command));
  TP_RETURN_IF_ERROR(reader.ReadStringList("args", &spec.args));
  TP_RETURN_IF_ERROR(ReadEnv(reader, &spec.env));
  return spec;
}

absl::StatusOr<PythonPackageSpec> PythonPackageSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{
      {"executorImageUri", "packageUris", "pythonModule", "args", "env"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  PythonPackageSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadString("executorImageUri", &spec.executor_image_uri));
  TP_RETURN_IF_ERROR(reader.ReadStringList("packageUris", &spec.package_uris));
  TP_RETURN_IF_ERROR(reader.ReadString("pythonModule", &spec.python_module));
  TP_RETURN_IF_ERROR(reader.ReadStringList("args", &spec.args));
  TP_RETURN_IF_ERROR(ReadEnv(reader, &spec.env));
  return spec;
}

absl::StatusOr<ReservationAffinity> ReservationAffinityFromJson(const Json& value,
                                                                std::string path) {
  static const JsonFields kFields{{"reservationAffinityType", "key", "values"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  ReservationAffinity affinity;
  TP_RETURN_IF_ERROR(ReadEnum(reader, "reservationAffinityType",
                              internal::ReservationAffinityTypeEnum(),
                              &affinity.reservation_affinity_type));
  TP_RETURN_IF_ERROR(reader.ReadString("key", &affinity.key));
  TP_RETURN_IF_ERROR(reader.ReadStringList("values", &affinity.values));
  return affinity;
}

absl::StatusOr<MachineSpec> MachineSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"machineType", "acceleratorType", "acceleratorCount",
                                   "gpuPartitionSize", "tpuTopology", "reservationAffinity"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  MachineSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadString("machineType", &spec.machine_type));
  TP_RETURN_IF_ERROR(
      ReadEnum(reader, "acceleratorType", internal::AcceleratorTypeEnum(), &spec.accelerator_type));
  TP_RETURN_IF_ERROR(reader.ReadInt32("acceleratorCount", &spec.accelerator_count));
  TP_RETURN_IF_ERROR(reader.ReadString("gpuPartitionSize", &spec.gpu_partition_size));
  TP_RETURN_IF_ERROR(reader.ReadString("tpuTopology", &spec.tpu_topology));
  if (const Json* affinity = reader.Find("reservationAffinity")) {
    TP_ASSIGN_OR_RETURN(
        spec.reservation_affinity,
        ReservationAffinityFromJson(*affinity, reader.PathOf("reservationAffinity")));
  }
  return spec;
}

absl::StatusOr<DiskSpec> DiskSpecFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"bootDiskType", "bootDiskSizeGb"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  DiskSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadString("bootDiskType", &spec.boot_disk_type));
  TP_RETURN_IF_ERROR(reader.ReadInt32("bootDiskSizeGb", &spec.boot_disk_size_gb));
  return spec;
}

absl::StatusOr<NfsMount> NfsMountFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{{"server", "path", "mountPoint"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  NfsMount mount;
  TP_RETURN_IF_ERROR(reader.ReadString("server", &mount.server));
  TP_RETURN_IF_ERROR(reader.ReadString("path", &mount.path));
  TP_RETURN_IF_ERROR(reader.ReadString("mountPoint", &mount.mount_point));
  return mount;
}

absl::StatusOr<Scheduling> SchedulingFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{
      {"timeout", "restartJobOnWorkerRestart", "strategy", "disableRetries", "maxWaitDuration"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  Scheduling scheduling;
  TP_RETURN_IF_ERROR(ReadDuration(reader, "timeout", &scheduling.timeout));
  TP_RETURN_IF_ERROR(
      reader.ReadBool("restartJobOnWorkerRestart", &scheduling.restart_job_on_worker_restart));
  TP_RETURN_IF_ERROR(
      ReadEnum(reader, "strategy", internal::SchedulingStrategyEnum(), &scheduling.strategy));
  TP_RETURN_IF_ERROR(reader.ReadBool("disableRetries", &scheduling.disable_retries));
  TP_RETURN_IF_ERROR(ReadDuration(reader, "maxWaitDuration", &scheduling.max_wait_duration));
  return scheduling;
}

// GcsDestination {outputUriPrefix}. A bare string is a common mistake
// (python-aiplatform issue #3273), so it gets an error that shows the fix.
absl::Status ReadBaseOutputDirectory(const JsonObjectReader& reader, std::string* out) {
  const Json* value = reader.Find("baseOutputDirectory");
  if (value == nullptr) return absl::OkStatus();
  const std::string path = reader.PathOf("baseOutputDirectory");
  if (value->is_string()) {
    return kVertexJson.Error(
        path, fmt::format("{}{}}}",
                          "must be an object {\"outputUriPrefix\": \"...\"}, not a string; write "
                          "\"baseOutputDirectory\": {\"outputUriPrefix\": ",
                          base::JsonExcerpt(*value)));
  }
  static const JsonFields kFields{{"outputUriPrefix"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader destination,
                      JsonObjectReader::Create(*value, path, kVertexJson, kFields));
  return destination.ReadString("outputUriPrefix", out);
}

absl::StatusOr<RpcStatus> RpcStatusFromJson(const Json& value, std::string path) {
  static const JsonFields kFields{.known = {"code", "message"}, .ignored = {"details"}};
  TP_ASSIGN_OR_RETURN(JsonObjectReader reader,
                      JsonObjectReader::Create(value, std::move(path), kVertexJson, kFields));
  RpcStatus status;
  TP_RETURN_IF_ERROR(reader.ReadInt32("code", &status.code));
  TP_RETURN_IF_ERROR(reader.ReadString("message", &status.message));
  return status;
}

absl::Status ReadJobState(const JsonObjectReader& reader, JobState* state) {
  const Json* value = reader.Find("state");
  if (value == nullptr) return absl::OkStatus();
  absl::StatusOr<JobState> parsed;
  if (value->is_string()) {
    parsed = ParseJobState(value->get_ref<const std::string&>());
  } else if (value->is_number_integer()) {
    TP_ASSIGN_OR_RETURN(int32_t number,
                        base::JsonInt32(*value, reader.PathOf("state"), kVertexJson));
    parsed = JobStateFromNumber(number);
  } else {
    return kVertexJson.Error(
        reader.PathOf("state"),
        fmt::format("expected an enum value of JobState (name or number), got {}",
                    DescribeJson(*value)));
  }
  if (!parsed.ok())
    return kVertexJson.Error(reader.PathOf("state"), std::string(parsed.status().message()));
  *state = *parsed;
  return absl::OkStatus();
}

// Reads an optional sub-message: `*out` is set only when the field is present.
template <typename T, typename ReadFn>
absl::Status ReadMessage(const JsonObjectReader& reader, std::string_view name, ReadFn read,
                         std::optional<T>* out) {
  const Json* value = reader.Find(name);
  if (value == nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(*out, read(*value, reader.PathOf(name)));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<WorkerPoolSpec> WorkerPoolSpecFromJson(const Json& json_value,
                                                      std::string_view path) {
  static const JsonFields kFields{.known = {"containerSpec", "pythonPackageSpec", "machineSpec",
                                            "replicaCount", "nfsMounts", "diskSpec"},
                                  .unsupported = {"lustreMounts"}};
  WorkerPoolSpec pool;
  // A null element (an empty "- " item in YAML) is a placeholder pool, like {}.
  if (json_value.is_null()) return pool;
  TP_ASSIGN_OR_RETURN(
      JsonObjectReader reader,
      JsonObjectReader::Create(json_value, std::string(path), kVertexJson, kFields));
  TP_RETURN_IF_ERROR(
      ReadMessage(reader, "containerSpec", ContainerSpecFromJson, &pool.container_spec));
  TP_RETURN_IF_ERROR(ReadMessage(reader, "pythonPackageSpec", PythonPackageSpecFromJson,
                                 &pool.python_package_spec));
  TP_RETURN_IF_ERROR(ReadMessage(reader, "machineSpec", MachineSpecFromJson, &pool.machine_spec));
  TP_RETURN_IF_ERROR(reader.ReadInt64("replicaCount", &pool.replica_count));
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("nfsMounts", [&pool](const Json& value, const std::string& at) {
        TP_ASSIGN_OR_RETURN(NfsMount mount, NfsMountFromJson(value, at));
        pool.nfs_mounts.push_back(std::move(mount));
        return absl::OkStatus();
      }));
  TP_RETURN_IF_ERROR(ReadMessage(reader, "diskSpec", DiskSpecFromJson, &pool.disk_spec));
  return pool;
}

absl::StatusOr<CustomJobSpec> CustomJobSpecFromJson(const Json& json_value, std::string_view path) {
  static const JsonFields kFields{
      .known = {"persistentResourceId", "workerPoolSpecs", "scheduling", "serviceAccount",
                "network", "reservedIpRanges", "baseOutputDirectory", "protectedArtifactLocationId",
                "tensorboard", "enableWebAccess", "enableDashboardAccess", "experiment",
                "experimentRun", "models"},
      .unsupported = {"pscInterfaceConfig"}};
  TP_ASSIGN_OR_RETURN(
      JsonObjectReader reader,
      JsonObjectReader::Create(json_value, std::string(path), kVertexJson, kFields));
  CustomJobSpec spec;
  TP_RETURN_IF_ERROR(reader.ReadString("persistentResourceId", &spec.persistent_resource_id));
  TP_RETURN_IF_ERROR(
      reader.ForEachElement("workerPoolSpecs", [&spec](const Json& value, const std::string& at) {
        TP_ASSIGN_OR_RETURN(WorkerPoolSpec pool, WorkerPoolSpecFromJson(value, at));
        spec.worker_pool_specs.push_back(std::move(pool));
        return absl::OkStatus();
      }));
  TP_RETURN_IF_ERROR(ReadMessage(reader, "scheduling", SchedulingFromJson, &spec.scheduling));
  TP_RETURN_IF_ERROR(reader.ReadString("serviceAccount", &spec.service_account));
  TP_RETURN_IF_ERROR(reader.ReadString("network", &spec.network));
  TP_RETURN_IF_ERROR(reader.ReadStringList("reservedIpRanges", &spec.reserved_ip_ranges));
  TP_RETURN_IF_ERROR(ReadBaseOutputDirectory(reader, &spec.base_output_directory));
  TP_RETURN_IF_ERROR(
      reader.ReadString("protectedArtifactLocationId", &spec.protected_artifact_location_id));
  TP_RETURN_IF_ERROR(reader.ReadString("tensorboard", &spec.tensorboard));
  TP_RETURN_IF_ERROR(reader.ReadBool("enableWebAccess", &spec.enable_web_access));
  TP_RETURN_IF_ERROR(reader.ReadBool("enableDashboardAccess", &spec.enable_dashboard_access));
  TP_RETURN_IF_ERROR(reader.ReadString("experiment", &spec.experiment));
  TP_RETURN_IF_ERROR(reader.ReadString("experimentRun", &spec.experiment_run));
  TP_RETURN_IF_ERROR(reader.ReadStringList("models", &spec.models));
  return spec;
}

absl::StatusOr<CustomJob> CustomJobFromJson(const Json& json_value, std::string_view path) {
  static const JsonFields kFields{
      .known = {"name", "displayName", "jobSpec", "state", "createTime", "startTime", "endTime",
                "updateTime", "error", "labels", "encryptionSpec", "webAccessUris"},
      .ignored = {"satisfiesPzs", "satisfiesPzi"}};
  TP_ASSIGN_OR_RETURN(
      JsonObjectReader reader,
      JsonObjectReader::Create(json_value, std::string(path), kVertexJson, kFields));
  CustomJob job;
  TP_RETURN_IF_ERROR(reader.ReadString("name", &job.name));
  TP_RETURN_IF_ERROR(reader.ReadString("displayName", &job.display_name));
  if (const Json* spec = reader.Find("jobSpec")) {
    TP_ASSIGN_OR_RETURN(job.job_spec, CustomJobSpecFromJson(*spec, reader.PathOf("jobSpec")));
  }
  TP_RETURN_IF_ERROR(ReadJobState(reader, &job.state));
  TP_RETURN_IF_ERROR(ReadTimestamp(reader, "createTime", &job.create_time));
  TP_RETURN_IF_ERROR(ReadTimestamp(reader, "startTime", &job.start_time));
  TP_RETURN_IF_ERROR(ReadTimestamp(reader, "endTime", &job.end_time));
  TP_RETURN_IF_ERROR(ReadTimestamp(reader, "updateTime", &job.update_time));
  TP_RETURN_IF_ERROR(ReadMessage(reader, "error", RpcStatusFromJson, &job.error));
  TP_RETURN_IF_ERROR(reader.ReadStringMap("labels", &job.labels));
  if (const Json* encryption = reader.Find("encryptionSpec")) {
    static const JsonFields kEncryptionFields{{"kmsKeyName"}};
    TP_ASSIGN_OR_RETURN(JsonObjectReader encryption_reader,
                        JsonObjectReader::Create(*encryption, reader.PathOf("encryptionSpec"),
                                                 kVertexJson, kEncryptionFields));
    TP_RETURN_IF_ERROR(
        encryption_reader.ReadString("kmsKeyName", &job.encryption_spec_kms_key_name));
  }
  TP_RETURN_IF_ERROR(reader.ReadStringMap("webAccessUris", &job.web_access_uris));
  return job;
}

}  // namespace trainpkg::jobspec
