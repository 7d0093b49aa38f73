// Where the Kubernetes backend of sdk::CustomJob sends a job and how it
// watches it.
#ifndef TRAINPKG_SDK_K8S_K8S_BACKEND_OPTIONS_H_
#define TRAINPKG_SDK_K8S_K8S_BACKEND_OPTIONS_H_

#include <filesystem>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "http/http_transport.h"
#include "registry/auth/credential.h"
#include "sdk/k8s/workload_kind.h"

namespace trainpkg::sdk::k8s {

struct K8sBackendOptions {
  // "" : $KUBECONFIG's first entry, else ~/.kube/config.
  std::filesystem::path kubeconfig{};
  std::string context{};               // "" : the kubeconfig's current-context
  std::string kubernetes_namespace{};  // "" : the context's namespace, else "default"
  WorkloadKind kind = WorkloadKind::kJobSet;
  bool node_selectors = true;  // GKE node selectors from machineSpec (job_manifests.h)
  // Registry credentials for the image pull secret; nullptr: docker's
  // config.json and credential helpers (registry/auth/docker_config.h).
  std::shared_ptr<registry::Keychain> keychain{};
  // nullptr: libcurl set up from the kubeconfig, with retries.
  std::shared_ptr<http::HttpTransport> transport{};
  // The workload is polled after initial_poll_interval, then at intervals
  // growing by poll_multiplier up to max_poll_interval; Cancel() polls at once.
  absl::Duration initial_poll_interval = absl::Seconds(1);
  absl::Duration max_poll_interval = absl::Seconds(15);
  double poll_multiplier = 1.5;
};

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_K8S_BACKEND_OPTIONS_H_
