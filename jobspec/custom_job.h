// The CustomJob resource of Vertex AI (google/cloud/aiplatform/v1/custom_job.proto
// and machine_resources.proto), as plain C++ values.
//
// Field names follow the proto in snake_case; the JSON form (custom_job_json.h)
// uses the proto3 JSON lowerCamelCase names. Optional sub-messages are
// std::optional so that "absent" and "present but empty" survive a round trip.
// These are value types: copyable, no invariants enforced on construction;
// ValidateCustomJob() (validation.h) checks them.
#ifndef TRAINPKG_JOBSPEC_CUSTOM_JOB_H_
#define TRAINPKG_JOBSPEC_CUSTOM_JOB_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/job_state.h"

namespace trainpkg::jobspec {

// google.cloud.aiplatform.v1.EnvVar. `value` may reference earlier variables
// as $(NAME); $$(NAME) escapes the reference.
struct EnvVar {
  std::string name;
  std::string value;
  bool operator==(const EnvVar&) const = default;
};

struct ReservationAffinity {
  std::string reservation_affinity_type;  // enum name, e.g. "ANY_RESERVATION"
  std::string key;
  std::vector<std::string> values;
  bool operator==(const ReservationAffinity&) const = default;
};

struct MachineSpec {
  std::string machine_type;      // e.g. "n1-standard-4"
  std::string accelerator_type;  // enum name, e.g. "NVIDIA_TESLA_T4"; "" when unset
  int32_t accelerator_count = 0;
  std::string gpu_partition_size;
  std::string tpu_topology;
  std::optional<ReservationAffinity> reservation_affinity;
  bool operator==(const MachineSpec&) const = default;
};

struct DiskSpec {
  std::string boot_disk_type;  // "pd-ssd", "pd-standard", "hyperdisk-balanced"
  int32_t boot_disk_size_gb = 0;
  bool operator==(const DiskSpec&) const = default;
};

struct ContainerSpec {
  std::string image_uri;
  std::vector<std::string> command;  // replaces the image's ENTRYPOINT when non-empty
  std::vector<std::string> args;     // replaces the image's CMD when non-empty
  std::vector<EnvVar> env;
  bool operator==(const ContainerSpec&) const = default;
};

struct PythonPackageSpec {
  std::string executor_image_uri;
  std::vector<std::string> package_uris;
  std::string python_module;
  std::vector<std::string> args;
  std::vector<EnvVar> env;
  bool operator==(const PythonPackageSpec&) const = default;
};

struct NfsMount {
  std::string server;
  std::string path;
  std::string mount_point;
  bool operator==(const NfsMount&) const = default;
};

struct WorkerPoolSpec {
  // oneof task: at most one of these is set in a valid spec.
  std::optional<ContainerSpec> container_spec;
  std::optional<PythonPackageSpec> python_package_spec;
  std::optional<MachineSpec> machine_spec;
  int64_t replica_count = 0;
  std::vector<NfsMount> nfs_mounts;
  std::optional<DiskSpec> disk_spec;

  // True for a placeholder pool ({} in JSON): nothing set at all.
  bool IsEmpty() const;
  bool operator==(const WorkerPoolSpec&) const = default;
};

struct Scheduling {
  std::optional<absl::Duration> timeout;  // JSON "3600s"
  bool restart_job_on_worker_restart = false;
  std::string strategy;  // enum name: STANDARD, SPOT, FLEX_START, ...; "" when unset
  bool disable_retries = false;
  std::optional<absl::Duration> max_wait_duration;
  bool operator==(const Scheduling&) const = default;
};

struct CustomJobSpec {
  std::string persistent_resource_id;
  std::vector<WorkerPoolSpec> worker_pool_specs;
  std::optional<Scheduling> scheduling;
  std::string service_account;
  std::string network;
  std::vector<std::string> reserved_ip_ranges;
  // baseOutputDirectory.outputUriPrefix; "" when unset. Locally a path or
  // file:// URI; on Vertex a gs:// URI.
  std::string base_output_directory;
  std::string protected_artifact_location_id;
  std::string tensorboard;
  bool enable_web_access = false;
  bool enable_dashboard_access = false;
  std::string experiment;
  std::string experiment_run;
  std::vector<std::string> models;
  bool operator==(const CustomJobSpec&) const = default;
};

// google.rpc.Status as carried in CustomJob.error.
struct RpcStatus {
  int32_t code = 0;
  std::string message;
  bool operator==(const RpcStatus&) const = default;
};

struct CustomJob {
  std::string name;  // output only: projects/{p}/locations/{l}/customJobs/{id}
  std::string display_name;
  CustomJobSpec job_spec;
  JobState state = JobState::kUnspecified;
  std::optional<absl::Time> create_time;
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  std::optional<absl::Time> update_time;
  std::optional<RpcStatus> error;
  std::map<std::string, std::string> labels;
  std::string encryption_spec_kms_key_name;  // encryptionSpec.kmsKeyName
  std::map<std::string, std::string> web_access_uris;
  bool operator==(const CustomJob&) const = default;
};

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_CUSTOM_JOB_H_
