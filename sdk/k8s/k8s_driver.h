// The Kubernetes backend's driver (sdk/backend_driver.h): the job runs on a
// kubeconfig's cluster as a JobSet, TFJob or PyTorchJob
// (sdk/k8s/internal/k8s_backend.h), recorded in the job store when there is
// one (sdk/k8s/k8s_job_record.h).
#ifndef TRAINPKG_SDK_K8S_K8S_DRIVER_H_
#define TRAINPKG_SDK_K8S_K8S_DRIVER_H_

#include "sdk/backend_driver.h"

namespace trainpkg::sdk::k8s {

const BackendDriver& K8sDriver();

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_K8S_DRIVER_H_
