// The flags that choose where `trainpkg run` sends a job: --backend local,
// --backend vertex with --project, --region, --endpoint and
// --access-token-file (access_token_flags.h), --backend k8s with the
// Kubernetes flags (K8sFlags), or --backend slurm with --partition,
// --sbatch-arg and --slurm-submit, or --backend ssh with --hosts or
// --hostfile, --no-copy, --ssh-config and --remote-trainpkg. Without --backend, --project or
// --region chooses vertex (like gcloud), else trainpkg's config file's `backend:` (user_config.h),
// else local. The vertex backend's project and region come from the flag, else
// $CLOUDSDK_CORE_PROJECT / $CLOUDSDK_AI_REGION, else the config file, else gcloud's active
// configuration (gcloud_config.h); those defaults never choose the backend, so a gcloud user's
// local runs stay local.
#ifndef TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
#define TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "base/environment.h"
#include "sdk/cli/access_token_flags.h"
#include "sdk/cli/user_config.h"
#include "sdk/custom_job.h"

namespace trainpkg::cli {

// --kubeconfig, --context, --namespace, --k8s-kind, --no-node-selectors.
struct K8sFlags {
  std::string kubeconfig;
  std::string context;
  std::string kubernetes_namespace;
  std::string kind = "jobset";  // jobset | tfjob | pytorchjob
  bool no_node_selectors = false;
};

struct BackendFlags {
  std::string backend;  // local | vertex | k8s | slurm; "": ChooseBackend
  std::string project;
  std::string region;
  std::string endpoint;           // "" : https://<region>-aiplatform.googleapis.com
  AccessTokenFlags access_token;  // none given: $CLOUDSDK_AUTH_ACCESS_TOKEN, else ADC
  K8sFlags k8s;
  std::string partition;  // slurm: "" : the cluster's default partition
  std::vector<std::string> sbatch_args;
  std::string slurm_submit = "sbatch";  // slurm: sbatch | salloc
  std::string hosts;                    // ssh: "host:slots,host:slots"
  std::string hostfile;                 // ssh: Open MPI hostfile
  bool no_copy = false;                 // ssh: executables at the same path on every host
  std::string ssh_config;               // ssh: ssh -F
  std::string remote_trainpkg;          // ssh: the hosts' trainpkg ("": on their PATH)
};

// Declares the Kubernetes flags on `command` (`trainpkg run`).
void AddK8sFlags(CLI::App& command, K8sFlags& flags);
// Only those shaping the objects: --namespace, --k8s-kind, --no-node-selectors
// (`trainpkg k8s render`, which reaches no cluster).
void AddK8sObjectFlags(CLI::App& command, K8sFlags& flags);

// options.k8s from the flags (kind parsed; kubeconfig, context, namespace as given).
absl::Status ApplyK8sFlags(const K8sFlags& flags, sdk::k8s::K8sBackendOptions& options);

// Which backends a command offers.
enum class BackendSet {
  kAll,     // local, vertex, k8s, slurm, ssh (`trainpkg run`)
  kTuning,  // local, vertex, slurm (`trainpkg hptune`: trials report through a file the
            // tuning service reads, which a Kubernetes pod's filesystem does not share)
};

// Declares --backend with the backends of `backends` and the flags of each.
void AddBackendFlags(CLI::App& command, BackendFlags& flags,
                     BackendSet backends = BackendSet::kAll);

// --backend when given; else "vertex" when --project or --region is; else
// `user`'s backend; else "local".
std::string ChooseBackend(const BackendFlags& flags, const UserConfig& user);

// Sets options.backend and options.vertex, options.k8s, options.slurm or
// options.ssh (the host list parsed: sdk/ssh/host_list.h, the hostfile read),
// reading trainpkg's config file and, for vertex, `env` and gcloud's
// configuration (see the top of this file). InvalidArgument naming the flag
// when vertex has no project or region from any source, when the project is
// not a project id or number or the region not a region
// (sdk/vertex/vertex_resource_ids.h: the region becomes part of the host name
// the token is sent to; a value from a default names its source), when a
// config file is malformed (file and line), when the token flags are refused
// (access_token_flags.h; reads `env` and, for --access-token-file -,
// standard input), when a flag is given with another backend than its own,
// or when the config file chooses a backend `backends` lacks.
absl::Status ApplyBackendFlags(const BackendFlags& flags, const base::Environment& env,
                               sdk::CustomJobOptions& options,
                               BackendSet backends = BackendSet::kAll);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
