// The pod template of one worker pool: its container (image, command, args,
// env, port, GPU limit), node selectors from its machineSpec, the image pull
// secret and the job's labels.
#ifndef TRAINPKG_SDK_K8S_INTERNAL_POD_TEMPLATE_H_
#define TRAINPKG_SDK_K8S_INTERNAL_POD_TEMPLATE_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::k8s::internal {

struct PodTemplateRequest {
  const jobspec::WorkerPoolSpec* pool = nullptr;  // REQUIRES: container_spec set
  std::string field{};                            // "workerPoolSpecs[1]", for errors
  nlohmann::json env;                             // the pool's env list (pool_env.h)
  std::string container_name{};                   // "trainer", "tensorflow", "pytorch"
  std::string port_name{};                        // "trainer", "tfjob-port", ...
  std::map<std::string, std::string> labels{};
  std::string pull_secret{};  // "" : none
  bool node_selectors = true;
};

// InvalidArgument naming <field>.machineSpec.acceleratorType for an
// accelerator other than an NVIDIA GPU.
absl::StatusOr<nlohmann::json> MakePodTemplate(const PodTemplateRequest& request);

// "nvidia-tesla-t4" for "NVIDIA_TESLA_T4": GKE's cloud.google.com/gke-accelerator value.
std::string GkeAcceleratorLabel(std::string_view accelerator_type);

}  // namespace trainpkg::sdk::k8s::internal

#endif  // TRAINPKG_SDK_K8S_INTERNAL_POD_TEMPLATE_H_
