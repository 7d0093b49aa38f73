// Everything the Kubernetes backend needs before it creates anything: the
// cluster (kubeconfig), the namespace, the registry credentials and the
// rendered manifests. Errors surface here, before a job is submitted.
#ifndef TRAINPKG_SDK_K8S_K8S_SUBMISSION_H_
#define TRAINPKG_SDK_K8S_K8S_SUBMISSION_H_

#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "jobspec/custom_job.h"
#include "sdk/k8s/job_manifests.h"
#include "sdk/k8s/k8s_backend_options.h"
#include "sdk/k8s/k8s_client.h"

namespace trainpkg::sdk::k8s {

struct K8sSubmission {
  std::shared_ptr<K8sClient> client{};
  JobManifests manifests{};
  std::filesystem::path kubeconfig{};  // the file read, absolute
  std::string context{};               // the context used
};

// `name` is the objects' metadata.name (job_manifests.h). Errors: the
// kubeconfig's (kubeconfig.h), the keychain's, RenderJobManifests'. `env`
// supplies KUBECONFIG, HOME and, for the default keychain, DOCKER_CONFIG and
// PATH; it must outlive the call only.
absl::StatusOr<K8sSubmission> PrepareK8sSubmission(const jobspec::CustomJob& job,
                                                   const K8sBackendOptions& options,
                                                   const std::string& name,
                                                   const base::Environment& env);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_K8S_SUBMISSION_H_
