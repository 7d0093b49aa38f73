// What a kubeconfig file says about reaching one cluster, as kubectl reads it:
// the context (current-context, or one named), its cluster (server,
// certificate-authority[-data], insecure-skip-tls-verify), its user (token,
// tokenFile, client-certificate[-data] with client-key[-data]) and its
// namespace. Relative file paths are resolved against the kubeconfig's
// directory. exec and auth-provider plugins are not supported.
#ifndef TRAINPKG_SDK_K8S_KUBECONFIG_H_
#define TRAINPKG_SDK_K8S_KUBECONFIG_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/environment.h"

namespace trainpkg::sdk::k8s {

struct ClusterAccess {
  std::string context{};
  std::string server{};  // "https://host:port", no trailing '/'
  std::string ca_pem{};  // "" : the system CAs
  bool insecure_skip_tls_verify = false;
  std::string token{};  // bearer token; "" when the user has none
  std::string client_cert_pem{};
  std::string client_key_pem{};
  std::string kubernetes_namespace{};  // "" when the context names none
};

// $KUBECONFIG's first entry, else $HOME/.kube/config. FailedPrecondition
// when neither is set.
absl::StatusOr<std::filesystem::path> KubeconfigPath(const base::Environment& env);

// Parses kubeconfig text; `context` "" means current-context. InvalidArgument
// naming the field (contexts, clusters[name].cluster.server, ...) when a
// needed part is missing or malformed; Unimplemented for exec and
// auth-provider users; file errors for referenced files.
absl::StatusOr<ClusterAccess> ParseKubeconfig(std::string_view text,
                                              const std::filesystem::path& base_dir,
                                              std::string_view context);

// Reads and parses the file; errors are prefixed with its path.
absl::StatusOr<ClusterAccess> LoadKubeconfig(const std::filesystem::path& path,
                                             std::string_view context);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_KUBECONFIG_H_
