// The flags that choose where `trainpkg run` sends a job: --backend local
// (default), --backend vertex with --project, --region, --endpoint and
// --access-token, or --backend k8s with the Kubernetes flags (K8sFlags).
#ifndef TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
#define TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
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
  std::string backend = "local";  // local | vertex | k8s
  std::string project;
  std::string region;
  std::string endpoint;      // "" : https://<region>-aiplatform.googleapis.com
  std::string access_token;  // "" : Application Default Credentials
  K8sFlags k8s;
};

// Declares the Kubernetes flags on `command` (`trainpkg run`).
void AddK8sFlags(CLI::App& command, K8sFlags& flags);
// Only those shaping the objects: --namespace, --k8s-kind, --no-node-selectors
// (`trainpkg k8s render`, which reaches no cluster).
void AddK8sObjectFlags(CLI::App& command, K8sFlags& flags);

// options.k8s from the flags (kind parsed; kubeconfig, context, namespace as given).
absl::Status ApplyK8sFlags(const K8sFlags& flags, sdk::k8s::K8sBackendOptions& options);

// Declares the flags on `command`.
void AddBackendFlags(CLI::App& command, BackendFlags& flags);

// Sets options.backend, options.vertex and options.k8s. InvalidArgument
// naming the flag when --backend vertex lacks --project or --region, or when
// a vertex or Kubernetes flag is given with another backend.
absl::Status ApplyBackendFlags(const BackendFlags& flags, sdk::CustomJobOptions& options);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_BACKEND_FLAGS_H_
