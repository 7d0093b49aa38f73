// Wiring for the Kubernetes backend: a K8sClient for the cluster a
// kubeconfig names, over libcurl (the kubeconfig's CA as the only trust root,
// its client certificate presented, insecure-skip-tls-verify honoured) with
// retries of idempotent requests.
#ifndef TRAINPKG_SDK_K8S_K8S_CLIENT_FACTORY_H_
#define TRAINPKG_SDK_K8S_K8S_CLIENT_FACTORY_H_

#include <memory>

#include "http/http_transport.h"
#include "sdk/k8s/k8s_client.h"
#include "sdk/k8s/kubeconfig.h"

namespace trainpkg::sdk::k8s {

// libcurl configured from `access`, below a RetryTransport.
std::shared_ptr<http::HttpTransport> MakeClusterTransport(const ClusterAccess& access);

// `transport` nullptr: MakeClusterTransport(access).
std::shared_ptr<K8sClient> MakeK8sClient(const ClusterAccess& access,
                                         std::shared_ptr<http::HttpTransport> transport);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_K8S_CLIENT_FACTORY_H_
