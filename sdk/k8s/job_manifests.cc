#include "sdk/k8s/job_manifests.h"

#include <array>
#include <regex>

#include "absl/strings/str_cat.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "jobspec/image_uri.h"
#include "jobspec/job_secret.h"
#include "sdk/internal/job_id.h"
#include "sdk/k8s/internal/pod_template.h"
#include "sdk/k8s/internal/pool_env.h"

namespace trainpkg::sdk::k8s {
namespace {

// The replica type of pool 0..3 ("" : none), as the CRD spells it.
constexpr std::array<const char*, 4> kTfReplicaTypes = {"Chief", "Worker", "PS", "Evaluator"};
constexpr std::array<const char*, 4> kPyTorchReplicaTypes = {"Master", "Worker", "", ""};

bool Used(const jobspec::WorkerPoolSpec& pool) { return !pool.IsEmpty() && pool.replica_count > 0; }

std::string PoolName(int pool) { return absl::StrCat("workerpool", pool); }

std::string ReplicaType(WorkloadKind kind, int pool) {
  return kind == WorkloadKind::kTFJob ? kTfReplicaTypes[pool] : kPyTorchReplicaTypes[pool];
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The first DNS label of replica (pool, index)'s name, and its address.
std::string HostLabel(const RenderRequest& r, int pool, int64_t index) {
  // The names the controllers give: a JobSet pod is <jobset>-<replicated
  // job>-<job index>-<pod index> under the JobSet's subdomain; the Kubeflow
  // operator makes a Service <name>-<type>-<index> per replica.
  if (r.kind == WorkloadKind::kJobSet)
    return absl::StrCat(r.name, "-", PoolName(pool), "-", index, "-0");
  return absl::StrCat(r.name, "-", Lower(ReplicaType(r.kind, pool)), "-", index);
}

std::string Address(const RenderRequest& r, int pool, int64_t index) {
  std::string host = HostLabel(r, pool, index);
  if (r.kind == WorkloadKind::kJobSet) absl::StrAppend(&host, ".", r.name);
  return absl::StrCat(host, ":", kReplicaPort);
}

absl::Status CheckJob(const RenderRequest& r) {
  if (absl::Status status = CheckWorkloadName(r.name); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("name: ", status.message()));
  }
  const auto& pools = r.job.job_spec.worker_pool_specs;
  for (int p = 0; p < static_cast<int>(pools.size()); ++p) {
    if (!Used(pools[p])) continue;
    const std::string field = absl::StrCat("workerPoolSpecs[", p, "]");
    if (pools[p].python_package_spec.has_value()) {
      return absl::UnimplementedError(absl::StrCat(
          field, ".pythonPackageSpec: the Kubernetes backend runs containerSpec images only"));
    }
    if (!pools[p].container_spec.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".containerSpec: required"));
    }
    const std::string image_field = absl::StrCat(field, ".containerSpec.imageUri");
    absl::StatusOr<jobspec::ImageUri> image =
        jobspec::ImageUri::Parse(pools[p].container_spec->image_uri);
    if (!image.ok()) return base::WithContext(image.status(), image_field);
    if (image->kind() == jobspec::ImageUri::Kind::kLocalExecutable) {
      return absl::InvalidArgumentError(
          absl::StrCat(image_field, ": \"", image->ToString(),
                       "\" is a local executable, which a cluster cannot run; push an image "
                       "(`trainpkg push`) and give its reference"));
    }
    if (image->kind() == jobspec::ImageUri::Kind::kOciLayout) {
      return absl::InvalidArgumentError(
          absl::StrCat(image_field, ": \"", image->ToString(),
                       "\" is an oci-layout on this host, which a cluster cannot pull; push it "
                       "(`trainpkg push oci:DIR[:TAG] REF`) and give its reference"));
    }
    if (r.kind != WorkloadKind::kJobSet && ReplicaType(r.kind, p).empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": a ", std::string(WorkloadKindField(r.kind)),
          " has no replica type for this pool (only Master and Worker: pools 0 and 1); use "
          "the jobset or tfjob kind"));
    }
    std::string longest = HostLabel(r, p, pools[p].replica_count - 1);
    // A pod's host name is one DNS label.
    if (longest.size() > 63) {
      return absl::InvalidArgumentError(
          absl::StrCat("name: \"", r.name, "\" is too long: the pod name ", longest, " would have ",
                       longest.size(), " characters, more than a DNS label's 63"));
    }
  }
  return absl::OkStatus();
}

nlohmann::json Metadata(const RenderRequest& r, std::string name) {
  nlohmann::json labels = r.job.labels;
  labels[kJobLabel] = r.name;
  nlohmann::json metadata = {
      {"name", std::move(name)}, {"namespace", r.kubernetes_namespace}, {"labels", labels}};
  if (!r.job.display_name.empty()) {
    // An annotation: label values are limited to 63 characters of a narrow
    // set, a display name is any text.
    metadata["annotations"] = {{"trainpkg.dev/display-name", r.job.display_name}};
  }
  return metadata;
}

nlohmann::json HeadlessService(const RenderRequest& r) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(r, r.name)},
          {"spec",
           {{"clusterIP", "None"},
            // Names resolve before the pods are Ready: replicas look each other up
            // while they are still starting.
            {"publishNotReadyAddresses", true},
            {"selector", {{kJobLabel, r.name}}},
            {"ports", {{{"name", "trainer"}, {"port", kReplicaPort}, {"protocol", "TCP"}}}}}}};
}

}  // namespace

absl::Status CheckWorkloadName(std::string_view name) {
  static const std::regex kDns1035("[a-z]([-a-z0-9]*[a-z0-9])?");
  if (!std::regex_match(name.begin(), name.end(), kDns1035) || name.size() > 63) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", std::string(name),
        "\" is not a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, "
        "ending with a letter or digit, at most 63 characters)"));
  }
  return absl::OkStatus();
}

std::string DefaultJobName(absl::Time now) {
  return absl::StrCat("tp-", sdk::internal::GenerateJobId(now));
}

std::vector<nlohmann::json> JobManifests::Objects() const {
  std::vector<nlohmann::json> objects;
  if (pull_secret.has_value()) objects.push_back(*pull_secret);
  if (service.has_value()) objects.push_back(*service);
  objects.push_back(workload);
  return objects;
}

nlohmann::json JobManifests::List() const {
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", Objects()}};
}

absl::StatusOr<JobManifests> RenderJobManifests(const RenderRequest& r) {
  TP_RETURN_IF_ERROR(CheckJob(r));
  const jobspec::CustomJobSpec& spec = r.job.job_spec;
  JobManifests manifests;
  const std::string secret_name = absl::StrCat(r.name, "-registry");
  TP_ASSIGN_OR_RETURN(manifests.pull_secret,
                      MakeImagePullSecret(secret_name, r.kubernetes_namespace, r.pull_credentials));
  if (manifests.pull_secret.has_value()) {
    (*manifests.pull_secret)["metadata"] = Metadata(r, secret_name);
    manifests.pull_secret_name = secret_name;
    if (!r.include_pull_secret) manifests.pull_secret.reset();
  }

  internal::PoolEnvRequest env_request;
  env_request.cluster.spec = spec;
  env_request.cluster.job_id = r.name;
  env_request.cluster.job_secret = r.job_secret;
  if (env_request.cluster.job_secret.empty()) {
    TP_ASSIGN_OR_RETURN(env_request.cluster.job_secret, jobspec::NewJobSecret());
  }
  env_request.cluster.addresses.resize(spec.worker_pool_specs.size());
  for (int p = 0; p < static_cast<int>(spec.worker_pool_specs.size()); ++p) {
    if (!Used(spec.worker_pool_specs[p])) continue;
    for (int64_t i = 0; i < spec.worker_pool_specs[p].replica_count; ++i) {
      env_request.cluster.addresses[p].push_back(Address(r, p, i));
    }
  }
  const bool jobset = r.kind == WorkloadKind::kJobSet;
  env_request.index_label = jobset ? kJobSetIndexLabel : kKubeflowIndexLabel;
  // The TFJob operator writes its own TF_CONFIG.
  if (r.kind == WorkloadKind::kTFJob) env_request.omit = {"TF_CONFIG"};
  // PyTorch's env:// variables: a PyTorchJob's operator sets them itself; a
  // JobSet's RANK counts with the global index (chief 0, workerpool1-i 1 + i).
  if (jobset) {
    env_request.cluster.pytorch_master_port = kPyTorchMasterPort;
    env_request.global_index_label = kJobSetGlobalIndexLabel;
  }
  int64_t global_index = 0;  // of the pool's first Job, in replicatedJobs order
  std::optional<int64_t> deadline;
  if (spec.scheduling.has_value() && spec.scheduling->timeout.has_value()) {
    deadline = absl::ToInt64Seconds(*spec.scheduling->timeout);
  }

  nlohmann::json replica_entries = jobset ? nlohmann::json::array() : nlohmann::json::object();
  nlohmann::json judged = nlohmann::json::array();  // JobSet: pools whose success counts
  for (int p = 0; p < static_cast<int>(spec.worker_pool_specs.size()); ++p) {
    const jobspec::WorkerPoolSpec& pool = spec.worker_pool_specs[p];
    if (!Used(pool)) continue;
    env_request.pool = p;
    env_request.global_index_offset = global_index;
    global_index += pool.replica_count;
    internal::PodTemplateRequest pod{
        .pool = &pool,
        .field = absl::StrCat("workerPoolSpecs[", p, "]"),
        .env = nlohmann::json(),
        .container_name = r.kind == WorkloadKind::kJobSet  ? "trainer"
                          : r.kind == WorkloadKind::kTFJob ? "tensorflow"
                                                           : "pytorch",
        .port_name = r.kind == WorkloadKind::kJobSet  ? "trainer"
                     : r.kind == WorkloadKind::kTFJob ? "tfjob-port"
                                                      : "pytorchjob-port",
        .labels = {{kJobLabel, r.name}, {kPoolLabel, PoolName(p)}},
        .pull_secret = manifests.pull_secret_name,
        .node_selectors = r.node_selectors};
    TP_ASSIGN_OR_RETURN(pod.env, internal::MakePoolEnv(env_request));
    TP_ASSIGN_OR_RETURN(nlohmann::json pod_template, internal::MakePodTemplate(pod));
    if (jobset) {
      // One pod per Job, never retried alone: a failed replica fails the job,
      // as on Vertex.
      nlohmann::json job_spec = {{"parallelism", 1},
                                 {"completions", 1},
                                 {"completionMode", "Indexed"},
                                 {"backoffLimit", 0},
                                 {"template", pod_template}};
      if (deadline.has_value()) job_spec["activeDeadlineSeconds"] = *deadline;
      replica_entries.push_back({{"name", PoolName(p)},
                                 {"replicas", pool.replica_count},
                                 {"template", {{"spec", job_spec}}}});
      // Parameter servers never finish by themselves: success must not wait for them.
      if (p != 2) judged.push_back(PoolName(p));
    } else {
      replica_entries[ReplicaType(r.kind, p)] = {
          {"replicas", pool.replica_count}, {"restartPolicy", "Never"}, {"template", pod_template}};
    }
  }

  nlohmann::json workload_spec;
  if (jobset) {
    workload_spec = {
        {"network",
         {{"enableDNSHostnames", true}, {"subdomain", r.name}, {"publishNotReadyAddresses", true}}},
        {"failurePolicy", {{"maxRestarts", 0}}},
        {"successPolicy", {{"operator", "All"}, {"targetReplicatedJobs", judged}}},
        {"replicatedJobs", replica_entries}};
    manifests.service = HeadlessService(r);
  } else {
    // Pods stay after the job ends, so `trainpkg jobs logs` can still read them.
    nlohmann::json run_policy = {{"backoffLimit", 0}, {"cleanPodPolicy", "None"}};
    if (deadline.has_value()) run_policy["activeDeadlineSeconds"] = *deadline;
    workload_spec = {{"runPolicy", run_policy},
                     {r.kind == WorkloadKind::kTFJob ? "tfReplicaSpecs" : "pytorchReplicaSpecs",
                      replica_entries}};
  }
  manifests.workload = {{"apiVersion", WorkloadApiVersion(r.kind)},
                        {"kind", WorkloadKindField(r.kind)},
                        {"metadata", Metadata(r, r.name)},
                        {"spec", workload_spec}};
  return manifests;
}

}  // namespace trainpkg::sdk::k8s
