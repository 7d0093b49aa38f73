// The Kubernetes objects that run a CustomJob, as JSON (what the API server
// takes and `kubectl apply -f` reads):
//
//   Secret   <name>-registry, kubernetes.io/dockerconfigjson, when the images'
//            registries have credentials (image_pull_secret.h) and the
//            request includes it (else the pods only name it)
//   Service  <name>, headless (JobSet only): the pods' DNS names
//   JobSet   <name>: one replicatedJob per worker pool ("workerpool0".."3"),
//            replicas = replicaCount, each Job one pod; pod DNS name
//            <name>-workerpool<p>-<i>-0.<name>
//   TFJob    <name>: Chief, Worker, PS, Evaluator for pools 0..3 (Kubeflow
//            training operator, which names the pods' services
//            <name>-<type>-<i> and writes TF_CONFIG itself)
//   PyTorchJob <name>: Master, Worker for pools 0, 1 (no parameter servers or
//            evaluators)
//
// Every replica's container gets the environment Vertex injects
// (jobspec/cluster_env.h: CLUSTER_SPEC, TF_CONFIG, AIP_*, CLOUD_ML_JOB_ID =
// <name>) with the pods' DNS names and port 2222 as the cluster addresses;
// in a JobSet also PyTorch's MASTER_ADDR (the chief's DNS name),
// MASTER_PORT 23456, WORLD_SIZE and RANK (PyTorchJob's operator sets its
// own); then containerSpec.env; command and args as containerSpec gives them.
// machineSpec: acceleratorCount NVIDIA GPUs become an "nvidia.com/gpu"
// limit; with node selectors on, acceleratorType becomes
// cloud.google.com/gke-accelerator (NVIDIA_TESLA_T4 -> nvidia-tesla-t4) and
// machineType node.kubernetes.io/instance-type. scheduling.timeout becomes
// activeDeadlineSeconds. Pods are never restarted (restartPolicy Never, no
// retries), as on Vertex without restartJobOnWorkerRestart.
#ifndef TRAINPKG_SDK_K8S_JOB_MANIFESTS_H_
#define TRAINPKG_SDK_K8S_JOB_MANIFESTS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"
#include "sdk/k8s/image_pull_secret.h"
#include "sdk/k8s/workload_kind.h"

namespace trainpkg::sdk::k8s {

// The port every replica's address names (Vertex's).
inline constexpr int kReplicaPort = 2222;
// The label every object and pod of a job carries, valued <name>.
inline constexpr char kJobLabel[] = "trainpkg.dev/job";
// The label every pod carries, valued its pool's name ("workerpool1").
inline constexpr char kPoolLabel[] = "trainpkg.dev/pool";
// The labels the JobSet controller and the Kubeflow training operator put on
// a pod, valued its replica index within the pool.
inline constexpr char kJobSetIndexLabel[] = "jobset.sigs.k8s.io/job-index";
inline constexpr char kKubeflowIndexLabel[] = "training.kubeflow.org/replica-index";
// The label JobSet (v0.6 on) puts on a pod, valued its Job's index across
// all replicatedJobs: with the pools in order and one pod per Job, the
// chief is 0 and workerpool1-i is 1 + i, PyTorch's RANK.
inline constexpr char kJobSetGlobalIndexLabel[] = "jobset.sigs.k8s.io/job-global-index";
// MASTER_PORT in a JobSet's pods: PyTorchJob's default, distinct from
// kReplicaPort.
inline constexpr int kPyTorchMasterPort = 23456;

struct RenderRequest {
  jobspec::CustomJob job{};
  // metadata.name of every object and CLOUD_ML_JOB_ID: a DNS-1035 label,
  // short enough for the longest pod DNS name to stay within 63 characters.
  std::string name{};
  std::string kubernetes_namespace = "default";
  WorkloadKind kind = WorkloadKind::kJobSet;
  // false leaves out the GKE node selectors (clusters labelling nodes otherwise).
  bool node_selectors = true;
  RegistryCredentials pull_credentials{};
  // TRAINPKG_JOB_SECRET of every replica (jobspec/job_secret.h), in each
  // container's env; "" makes a new one (jobspec::NewJobSecret).
  std::string job_secret{};
  // With pull_credentials: true adds the Secret <name>-registry holding them
  // to the objects (what the k8s backend creates); false leaves it out, so
  // no password is in the objects, and the pods still name it in
  // imagePullSecrets (JobManifests::pull_secret_name): someone creates it.
  bool include_pull_secret = true;
};

struct JobManifests {
  std::optional<nlohmann::json> pull_secret{};  // none without include_pull_secret
  // The Secret the pods' imagePullSecrets name; "" when the images' registries
  // have no credentials.
  std::string pull_secret_name{};
  std::optional<nlohmann::json> service{};
  nlohmann::json workload{};

  // In the order they are created: secret, service, workload.
  std::vector<nlohmann::json> Objects() const;
  // A "v1" List of Objects(), as `trainpkg k8s render` prints it.
  nlohmann::json List() const;
};

// "tp-<numeric id>" (sdk::CustomJob's generated id): the name of a job
// given none.
std::string DefaultJobName(absl::Time now);

// InvalidArgument, quoting `name`, when it cannot be the objects'
// metadata.name: not a DNS-1035 label (the job id rule of this backend).
absl::Status CheckWorkloadName(std::string_view name);

// InvalidArgument naming the field (name, workerPoolSpecs[i]...) when the job
// cannot run as `kind`: a local: image, a name that is not a DNS-1035 label or
// too long, a pool a PyTorchJob has no replica type for, an accelerator other
// than an NVIDIA GPU; Unimplemented for pythonPackageSpec. The job itself is
// assumed valid (jobspec::ValidateCustomJob).
absl::StatusOr<JobManifests> RenderJobManifests(const RenderRequest& request);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_JOB_MANIFESTS_H_
