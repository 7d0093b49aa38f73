#include "sdk/k8s/k8s_submission.h"

#include "base/status_macros.h"
#include "registry/auth/docker_config.h"
#include "sdk/k8s/image_pull_secret.h"
#include "sdk/k8s/k8s_client_factory.h"
#include "sdk/k8s/kubeconfig.h"

namespace trainpkg::sdk::k8s {

absl::StatusOr<K8sSubmission> PrepareK8sSubmission(const jobspec::CustomJob& job,
                                                   const K8sBackendOptions& options,
                                                   const std::string& name,
                                                   const base::Environment& env) {
  std::filesystem::path path = options.kubeconfig;
  if (path.empty()) {
    TP_ASSIGN_OR_RETURN(path, KubeconfigPath(env));
  }
  TP_ASSIGN_OR_RETURN(ClusterAccess access, LoadKubeconfig(path, options.context));
  RenderRequest request{.job = job, .name = name};
  // kubectl's order: the flag, the context's namespace, then "default".
  request.kubernetes_namespace =
      !options.kubernetes_namespace.empty()  ? options.kubernetes_namespace
      : !access.kubernetes_namespace.empty() ? access.kubernetes_namespace
                                             : "default";
  request.kind = options.kind;
  request.node_selectors = options.node_selectors;
  std::shared_ptr<registry::Keychain> keychain = options.keychain;
  if (keychain == nullptr) keychain = std::make_shared<registry::DockerKeychain>(env);
  TP_ASSIGN_OR_RETURN(request.pull_credentials,
                      CollectRegistryCredentials(job.job_spec, *keychain));
  K8sSubmission submission;
  TP_ASSIGN_OR_RETURN(submission.manifests, RenderJobManifests(request));
  submission.client = MakeK8sClient(access, options.transport);
  std::error_code ec;
  // Absolute in the record: later commands may run from any directory.
  submission.kubeconfig = std::filesystem::absolute(path, ec);
  if (ec) submission.kubeconfig = path;
  submission.context = access.context;
  return submission;
}

}  // namespace trainpkg::sdk::k8s
