#include "sdk/k8s/image_pull_secret.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "jobspec/image_uri.h"
#include "registry/auth/docker_config.h"
#include "registry/reference.h"

namespace trainpkg::sdk::k8s {

absl::StatusOr<RegistryCredentials> CollectRegistryCredentials(const jobspec::CustomJobSpec& spec,
                                                               registry::Keychain& keychain) {
  RegistryCredentials credentials;
  for (size_t i = 0; i < spec.worker_pool_specs.size(); ++i) {
    const auto& container = spec.worker_pool_specs[i].container_spec;
    if (!container.has_value()) continue;
    const std::string field = absl::StrCat("workerPoolSpecs[", i, "].containerSpec.imageUri");
    absl::StatusOr<jobspec::ImageUri> image = jobspec::ImageUri::Parse(container->image_uri);
    if (!image.ok()) return base::WithContext(image.status(), field);
    // local: executables and oci-layouts have no registry (RenderJobManifests
    // refuses both).
    if (image->kind() != jobspec::ImageUri::Kind::kRegistry) continue;
    absl::StatusOr<registry::Reference> ref = registry::ParseReference(image->reference());
    if (!ref.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": ", ref.status().message()));
    }
    const std::string& host = ref->repository.registry;
    if (credentials.contains(host)) continue;
    TP_ASSIGN_OR_RETURN(registry::Credential credential, keychain.Resolve(host));
    if (!credential.anonymous()) credentials.emplace(host, std::move(credential));
  }
  return credentials;
}

absl::StatusOr<std::optional<nlohmann::json>> MakeImagePullSecret(
    const std::string& name, const std::string& kubernetes_namespace,
    const RegistryCredentials& credentials) {
  if (credentials.empty()) return std::nullopt;
  nlohmann::json auths = nlohmann::json::object();
  for (const auto& [host, credential] : credentials) {
    if (credential.username.empty() && credential.password.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the credential for ", host,
          " is an identity or registry token, which the kubelet cannot use to pull; log in with "
          "a username and password (or access token) instead"));
    }
    auths[registry::DockerCredentialKey(host)] = {
        {"username", credential.username},
        {"password", credential.password},
        {"auth", absl::Base64Escape(absl::StrCat(credential.username, ":", credential.password))}};
  }
  nlohmann::json config = {{"auths", auths}};
  return nlohmann::json{{"apiVersion", "v1"},
                        {"kind", "Secret"},
                        {"metadata", {{"name", name}, {"namespace", kubernetes_namespace}}},
                        {"type", "kubernetes.io/dockerconfigjson"},
                        {"data", {{".dockerconfigjson", absl::Base64Escape(config.dump())}}}};
}

}  // namespace trainpkg::sdk::k8s
