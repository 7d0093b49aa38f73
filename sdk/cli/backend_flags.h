// The flags that choose where `trainpkg run` sends a job: --backend local
// (default), --backend vertex with --project, --region, --endpoint and
// --access-token-file (access_token_flags.h), --backend k8s with the
// Kubernetes flags (K8sFlags), or --backend slurm with --partition,
// --sbatch-arg and --slurm-submit.
#ifndef TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
#define TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "sdk/cli/access_token_flags.h"
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
  std::string backend = "local";  // local | vertex | k8s | slurm
  std::string project;
  std::string region;
  std::string endpoint;           // "" : https://<region>-aiplatform.googleapis.com
  AccessTokenFlags access_token;  // none given: $CLOUDSDK_AUTH_ACCESS_TOKEN, else ADC
  K8sFlags k8s;
  std::string partition;  // slurm: "" : the cluster's default partition
  std::vector<std::string> sbatch_args;
  std::string slurm_submit = "sbatch";  // slurm: sbatch | salloc
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
  kAll,     // local, vertex, k8s, slurm (`trainpkg run`)
  kTuning,  // local, vertex, slurm (`trainpkg hptune`: trials report through a file the
            // tuning service reads, which a Kubernetes pod's filesystem does not share)
};

// Declares --backend with the backends of `backends` and the flags of each.
void AddBackendFlags(CLI::App& command, BackendFlags& flags,
                     BackendSet backends = BackendSet::kAll);

// Sets options.backend and options.vertex, options.k8s or options.slurm.
// InvalidArgument naming the flag when --backend vertex lacks --project or
// --region, when --project is not a project id or number or --region not a
// region (sdk/vertex/vertex_resource_ids.h: the region becomes part of the
// host name the token is sent to), when the token flags are refused
// (access_token_flags.h; reads the process environment and, for
// --access-token-file -, standard input), or when a flag is given with
// another backend than its own.
absl::Status ApplyBackendFlags(const BackendFlags& flags, sdk::CustomJobOptions& options);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
