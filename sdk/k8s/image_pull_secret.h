// The imagePullSecret of a job: the user's registry credentials (docker's
// config.json, credential helpers: registry/auth/docker_config.h) for the
// registries the job's images live on, as a Secret of type
// kubernetes.io/dockerconfigjson that the kubelet reads.
#ifndef TRAINPKG_SDK_K8S_IMAGE_PULL_SECRET_H_
#define TRAINPKG_SDK_K8S_IMAGE_PULL_SECRET_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"
#include "registry/auth/credential.h"

namespace trainpkg::sdk::k8s {

// Registry ("gcr.io", "localhost:5000", "docker.io") -> its credential.
using RegistryCredentials = std::map<std::string, registry::Credential>;

// The credentials of every registry an image of `spec` (containerSpec.imageUri)
// is on; registries without one, and local: executables, are left out. Errors: InvalidArgument
// naming workerPoolSpecs[i].containerSpec.imageUri when it is not a reference, the keychain's
// errors.
absl::StatusOr<RegistryCredentials> CollectRegistryCredentials(const jobspec::CustomJobSpec& spec,
                                                               registry::Keychain& keychain);

// The Secret, or nullopt when `credentials` is empty. FailedPrecondition
// naming the registry when its credential is only an identity or registry
// token, which the kubelet cannot use.
absl::StatusOr<std::optional<nlohmann::json>> MakeImagePullSecret(
    const std::string& name, const std::string& kubernetes_namespace,
    const RegistryCredentials& credentials);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_IMAGE_PULL_SECRET_H_
