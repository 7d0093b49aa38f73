#include "jobspec/validation.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/image_uri.h"
#include "jobspec/internal/proto_enums.h"

namespace trainpkg::jobspec {
namespace {

// CustomJob.displayName: "can be up to 128 characters long and can consist
// of any UTF-8 characters" (counted in code points).
constexpr size_t kMaxDisplayNameLength = 128;
// Labels: the proto allows 64 code points of lowercase letters, digits, '_'
// and '-' (international letters too); GCP's general label rules are
// stricter (64 labels; keys of 1 to 63 starting with a lowercase or
// international letter; values up to 63), and a job must pass both.
constexpr size_t kMaxLabels = 64;
constexpr size_t kMaxLabelLength = 63;
// Vertex documents four pool positions: chief, workers, parameter servers
// (or Reduction Server), evaluators; what more would mean is undocumented.
constexpr size_t kMaxWorkerPools = 4;
// ContainerSpec.env and PythonPackageSpec.env: "Maximum limit is 100".
constexpr size_t kMaxEnvVars = 100;
// Upper bounds on the counts that size what trainpkg allocates, checked before
// anything is planned.
// Vertex documents no replica cap (project quotas bound it). trainpkg plans
// every replica up front and gives each the whole cluster (CLUSTER_SPEC and
// TF_CONFIG list every replica), so the work grows with the square of the
// total; 1000 per pool and 2000 per job cover the largest real jobs.
constexpr int64_t kMaxReplicasPerPool = 1000;
constexpr int64_t kMaxReplicasPerJob = 2000;
// The largest Vertex machine types carry 16 accelerators (a2-megagpu-16g).
constexpr int32_t kMaxAcceleratorCount = 16;
// Vertex: "maximum length for all arguments combined is 100,000 characters".
// Counted as the kernel counts argv (each argument with its terminating NUL).
constexpr size_t kMaxArgumentChars = 100'000;
// Vertex documents only the count of env vars (100); their text gets the
// budget of the arguments, so both together stay far below Linux's ARG_MAX.
constexpr size_t kMaxEnvChars = 100'000;
// Vertex: PythonPackageSpec.packageUris, at most 100.
constexpr size_t kMaxPackageUris = 100;
constexpr size_t kMaxJobIdLength = 128;

class IssueList {
 public:
  void Add(std::string field, std::string message) {
    issues_.push_back({std::move(field), std::move(message)});
  }
  std::vector<ValidationIssue> Take() && { return std::move(issues_); }

 private:
  std::vector<ValidationIssue> issues_;
};

// Unicode code points in valid UTF-8 (continuation bytes are not counted).
size_t CodePointCount(std::string_view text) {
  size_t count = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

bool IsInternational(char c) { return static_cast<unsigned char>(c) >= 0x80; }

bool IsLowerOrInternational(char c) { return absl::ascii_islower(c) || IsInternational(c); }

// Label keys and values: lowercase letters (international ones too), digits,
// '_' and '-'.
bool IsLabelText(std::string_view text) {
  for (char c : text) {
    if (!IsLowerOrInternational(c) && !absl::ascii_isdigit(c) && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

constexpr std::string_view kLabelCharacters =
    "only lowercase letters, digits, '_' and '-' are allowed";

void CheckLabels(const std::map<std::string, std::string>& labels, IssueList& issues) {
  if (labels.size() > kMaxLabels) {
    issues.Add("labels",
               fmt::format("has {} labels; at most {} are allowed", labels.size(), kMaxLabels));
    return;  // one issue, not one per label
  }
  for (const auto& [key, value] : labels) {
    std::string field = key.empty() ? "labels" : fmt::format("labels.{}", key);
    size_t key_length = CodePointCount(key);
    if (key_length == 0 || key_length > kMaxLabelLength) {
      issues.Add(field, fmt::format("key must be 1 to {} characters long; it has {}",
                                    kMaxLabelLength, key_length));
    } else if (!IsLowerOrInternational(key[0])) {
      issues.Add(field, fmt::format("key '{}' must start with a lowercase letter", key));
    } else if (!IsLabelText(key)) {
      issues.Add(field, fmt::format("key '{}': {}", key, kLabelCharacters));
    }
    if (CodePointCount(value) > kMaxLabelLength) {
      issues.Add(field, fmt::format("value must be at most {} characters long; it has {}",
                                    kMaxLabelLength, CodePointCount(value)));
    } else if (!IsLabelText(value)) {
      issues.Add(field, fmt::format("value '{}': {}", value, kLabelCharacters));
    }
  }
}

bool IsCIdentifier(std::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name[0])) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

void CheckEnv(const std::vector<EnvVar>& env, const std::string& path, IssueList& issues) {
  const std::string env_path = fmt::format("{}.env", path);
  if (env.size() > kMaxEnvVars) {
    issues.Add(env_path,
               fmt::format("has {} variables; at most {} are allowed", env.size(), kMaxEnvVars));
    return;  // one issue, not one per variable
  }
  size_t chars = 0;
  for (const EnvVar& var : env) chars += var.name.size() + var.value.size();
  if (chars > kMaxEnvChars) {
    issues.Add(env_path, fmt::format("names and values are {} characters long together; at most "
                                     "{} are allowed",
                                     chars, kMaxEnvChars));
  }
  std::map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < env.size(); ++i) {
    std::string field = fmt::format("{}[{}].name", env_path, i);
    const std::string& name = env[i].name;
    if (name.empty()) {
      issues.Add(field, "required: the variable's name");
    // EnvVar.name "must be a valid C identifier".
    } else if (!IsCIdentifier(name)) {
      issues.Add(field, fmt::format("'{}{}", name,
                                    "' is not a valid C identifier (letters, digits and '_', "
                                    "not starting with a digit)"));
    } else if (auto [it, inserted] = first_index.emplace(name, i); !inserted) {
      issues.Add(field, fmt::format("'{}' is already set by env[{}]; each name may appear once",
                                    name, it->second));
    }
  }
}

// `lists` hold the arguments of one program, e.g. command and args.
void CheckArgumentLength(std::initializer_list<const std::vector<std::string>*> lists,
                         const std::string& field, IssueList& issues) {
  size_t chars = 0;
  for (const std::vector<std::string>* list : lists) {
    for (const std::string& arg : *list) chars += arg.size() + 1;
  }
  if (chars > kMaxArgumentChars) {
    issues.Add(field, fmt::format("the arguments are {} characters long (with one terminating NUL "
                                  "each); at most {} are allowed together",
                                  chars, kMaxArgumentChars));
  }
}

void CheckImageUri(const std::string& uri, const std::string& field, IssueList& issues) {
  if (uri.empty()) {
    issues.Add(field,
               "required: the container image to run, e.g. us-docker.pkg.dev/p/repo/trainer:1 "
               "(or local:/abs/path/to/executable to run a process)");
  } else if (absl::StatusOr<ImageUri> parsed = ImageUri::Parse(uri); !parsed.ok()) {
    issues.Add(field, std::string(parsed.status().message()));
  }
}

void CheckExecutorImageUri(const std::string& uri, const std::string& field, IssueList& issues) {
  if (uri.empty()) {
    issues.Add(field,
               "required: the image that runs the Python package, e.g. a prebuilt training image");
  } else if (absl::StatusOr<ImageUri> parsed = ImageUri::Parse(uri); !parsed.ok()) {
    issues.Add(field, std::string(parsed.status().message()));
  } else if (!parsed->is_image()) {
    issues.Add(field, fmt::format("\"{}\" is a host executable, not an image; the Python package "
                                  "runs in an image: oci:DIR[:TAG] or a registry reference",
                                  uri));
  }
}

void CheckMachineSpec(const std::optional<MachineSpec>& machine, const std::string& path,
                      IssueList& issues) {
  const std::string machine_path = fmt::format("{}.machineSpec", path);
  if (!machine.has_value() || machine->machine_type.empty()) {
    issues.Add(fmt::format("{}.machineType", machine_path), "required, e.g. n1-standard-4");
  }
  if (!machine.has_value()) return;
  const std::string type_field = fmt::format("{}.acceleratorType", machine_path);
  const std::string count_field = fmt::format("{}.acceleratorCount", machine_path);
  if (machine->accelerator_type.empty()) {
    if (machine->accelerator_count != 0) {
      issues.Add(count_field,
                 "set without acceleratorType; set both (e.g. acceleratorType: NVIDIA_TESLA_T4) "
                 "or neither");
    }
    return;
  }
  std::vector<std::string_view> known = internal::AcceleratorTypeEnum().SpecifiedNames();
  if (std::find(known.begin(), known.end(), machine->accelerator_type) == known.end()) {
    issues.Add(
        type_field,
        fmt::format("unknown accelerator type '{}'{}; valid types: {}", machine->accelerator_type,
                    base::DidYouMean(machine->accelerator_type, known), fmt::join(known, ", ")));
  }
  if (machine->accelerator_count == 0) {
    issues.Add(count_field, "required with acceleratorType: the number of accelerators, 1 or more");
  } else if (machine->accelerator_count < 0) {
    issues.Add(count_field, fmt::format("must be at least 1; got {}", machine->accelerator_count));
  } else if (machine->accelerator_count > kMaxAcceleratorCount) {
    issues.Add(count_field,
               fmt::format("must be at most {} (the most any machine type has); got {}",
                           kMaxAcceleratorCount, machine->accelerator_count));
  }
}

void CheckTask(const WorkerPoolSpec& pool, const std::string& path, IssueList& issues) {
  // gcloud: "Exactly one of fields [pythonPackageSpec, containerSpec] is
  // required for a [workerPoolSpecs]".
  const bool has_container = pool.container_spec.has_value();
  const bool has_python = pool.python_package_spec.has_value();
  if (has_container && has_python) {
    issues.Add(path, "both containerSpec and pythonPackageSpec are set; keep exactly one");
    return;
  }
  if (!has_container && !has_python) {
    issues.Add(path,
               "exactly one of containerSpec or pythonPackageSpec is required; neither is set");
    return;
  }
  if (has_container) {
    const std::string spec_path = fmt::format("{}.containerSpec", path);
    CheckImageUri(pool.container_spec->image_uri, fmt::format("{}.imageUri", spec_path), issues);
    CheckArgumentLength({&pool.container_spec->command, &pool.container_spec->args},
                        fmt::format("{}.args", spec_path), issues);
    CheckEnv(pool.container_spec->env, spec_path, issues);
    return;
  }
  const PythonPackageSpec& python = *pool.python_package_spec;
  const std::string spec_path = fmt::format("{}.pythonPackageSpec", path);
  CheckExecutorImageUri(python.executor_image_uri, fmt::format("{}.executorImageUri", spec_path),
                        issues);
  if (python.python_module.empty()) {
    issues.Add(fmt::format("{}.pythonModule", spec_path),
               "required: the module to run, e.g. trainer.task");
  }
  if (python.package_uris.size() > kMaxPackageUris) {
    issues.Add(fmt::format("{}.packageUris", spec_path),
               fmt::format("has {} URIs; at most {} are allowed", python.package_uris.size(),
                           kMaxPackageUris));
  }
  CheckArgumentLength({&python.args}, fmt::format("{}.args", spec_path), issues);
  CheckEnv(python.env, spec_path, issues);
}

void CheckWorkerPool(const WorkerPoolSpec& pool, size_t index, IssueList& issues) {
  const std::string path = fmt::format("jobSpec.workerPoolSpecs[{}]", index);
  // "All worker pools except the first one are optional and can be skipped
  // by providing an empty value" (CustomJobSpec.workerPoolSpecs).
  if (pool.IsEmpty()) {
    if (index == 0) {
      issues.Add(path,
                 "the first pool (the chief) must not be empty; only later pools may be "
                 "placeholders ({})");
    }
    return;
  }
  const std::string replicas = fmt::format("{}.replicaCount", path);
  // The distributed training guide: "Use the first worker pool specification
  // only for your primary replica, and set its replicaCount to 1" (the
  // Python SDK refuses more, too).
  if (index == 0 && pool.replica_count != 1) {
    issues.Add(replicas, fmt::format("must be 1 for the first pool (the chief); got {}; put "
                                     "further replicas in workerPoolSpecs[1]",
                                     pool.replica_count));
  } else if (pool.replica_count < 1) {
    issues.Add(replicas, fmt::format("must be at least 1; got {}", pool.replica_count));
  } else if (pool.replica_count > kMaxReplicasPerPool) {
    issues.Add(replicas, fmt::format("must be at most {} per pool; got {}", kMaxReplicasPerPool,
                                     pool.replica_count));
  }
  CheckMachineSpec(pool.machine_spec, path, issues);
  CheckTask(pool, path, issues);
}

void CheckJobSpec(const CustomJobSpec& spec, IssueList& issues) {
  const auto& pools = spec.worker_pool_specs;
  if (pools.empty()) {
    issues.Add("jobSpec.workerPoolSpecs", "at least one worker pool (the chief) is required");
  } else if (pools.size() > kMaxWorkerPools) {
    issues.Add(
        "jobSpec.workerPoolSpecs",
        fmt::format(
            "has {} pools; at most {} are allowed (chief, workers, parameter servers, evaluators)",
            pools.size(), kMaxWorkerPools));
  }
  // Pools past their own bound are reported by CheckWorkerPool; the sum of
  // the others is at most 4 * kMaxReplicasPerPool, so it cannot overflow.
  int64_t replicas = 0;
  for (size_t i = 0; i < pools.size() && i < kMaxWorkerPools; ++i) {
    CheckWorkerPool(pools[i], i, issues);
    if (!pools[i].IsEmpty() && pools[i].replica_count <= kMaxReplicasPerPool) {
      replicas += std::max<int64_t>(pools[i].replica_count, 0);
    }
  }
  if (replicas > kMaxReplicasPerJob) {
    issues.Add("jobSpec.workerPoolSpecs",
               fmt::format("the pools ask for {} replicas in all; at most {} are allowed per job",
                           replicas, kMaxReplicasPerJob));
  }
  if (spec.scheduling.has_value() && spec.scheduling->timeout.has_value() &&
      *spec.scheduling->timeout <= absl::ZeroDuration()) {
    issues.Add("jobSpec.scheduling.timeout",
               fmt::format("must be positive, e.g. \"3600s\"; got \"{}\"",
                           jobspec::FormatDuration(*spec.scheduling->timeout)));
  }
}

}  // namespace

std::vector<ValidationIssue> CollectValidationIssues(const CustomJob& job) {
  IssueList issues;
  size_t name_length = CodePointCount(job.display_name);
  if (name_length == 0) {
    issues.Add("displayName", "required: a name for the job, up to 128 characters");
  } else if (name_length > kMaxDisplayNameLength) {
    issues.Add("displayName", fmt::format("must be at most {} characters long; it has {}",
                                          kMaxDisplayNameLength, name_length));
  }
  CheckLabels(job.labels, issues);
  CheckJobSpec(job.job_spec, issues);
  return std::move(issues).Take();
}

absl::Status ValidateCustomJob(const CustomJob& job) {
  std::vector<ValidationIssue> issues = CollectValidationIssues(job);
  if (issues.empty()) return absl::OkStatus();
  std::string message = fmt::format("invalid job: {}{}", issues.size(),
                                    issues.size() == 1 ? " problem" : " problems");
  for (const ValidationIssue& issue : issues) {
    message += fmt::format("\n  {}: {}", issue.field, issue.message);
  }
  return absl::InvalidArgumentError(message);
}

absl::Status ValidateJobId(std::string_view job_id) {
  if (job_id.empty()) return absl::InvalidArgumentError("job ID is empty");
  if (job_id.size() > kMaxJobIdLength) {
    return absl::InvalidArgumentError(fmt::format(
        "job ID is {} characters long; at most {} are allowed", job_id.size(), kMaxJobIdLength));
  }
  if (!absl::ascii_isalpha(static_cast<unsigned char>(job_id[0]))) {
    return absl::InvalidArgumentError(fmt::format("job ID '{}' must start with a letter", job_id));
  }
  for (char c : job_id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return absl::InvalidArgumentError(
          fmt::format("job ID '{}' may contain only letters, digits and underscores; found '{}'",
                      job_id, std::string(1, c)));
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::jobspec
