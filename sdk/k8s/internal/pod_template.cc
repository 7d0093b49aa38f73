#include "sdk/k8s/internal/pod_template.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "sdk/k8s/job_manifests.h"

namespace trainpkg::sdk::k8s::internal {

std::string GkeAcceleratorLabel(std::string_view accelerator_type) {
  // GKE's node label spells the type in lower case with '-' (nvidia-tesla-t4).
  return absl::AsciiStrToLower(absl::StrReplaceAll(std::string(accelerator_type), {{"_", "-"}}));
}

absl::StatusOr<nlohmann::json> MakePodTemplate(const PodTemplateRequest& request) {
  const jobspec::ContainerSpec& spec = *request.pool->container_spec;
  nlohmann::json container = {
      {"name", request.container_name},
      {"image", spec.image_uri},
      {"env", request.env},
      {"ports",
       {{{"name", request.port_name}, {"containerPort", kReplicaPort}, {"protocol", "TCP"}}}}};
  if (!spec.command.empty()) container["command"] = spec.command;
  if (!spec.args.empty()) container["args"] = spec.args;
  for (const jobspec::EnvVar& var : spec.env) {
    container["env"].push_back({{"name", var.name}, {"value", var.value}});
  }
  // A failed trainer is not restarted in place: the job fails, as on Vertex.
  nlohmann::json pod_spec = {{"restartPolicy", "Never"}};
  nlohmann::json node_selector = nlohmann::json::object();
  if (request.pool->machine_spec.has_value()) {
    const jobspec::MachineSpec& machine = *request.pool->machine_spec;
    const bool has_accelerator = !machine.accelerator_type.empty() &&
                                 machine.accelerator_type != "ACCELERATOR_TYPE_UNSPECIFIED";
    if (has_accelerator && !absl::StartsWith(machine.accelerator_type, "NVIDIA_")) {
      return absl::InvalidArgumentError(absl::StrCat(
          request.field, ".machineSpec.acceleratorType: ", machine.accelerator_type,
          " has no Kubernetes mapping here; only NVIDIA GPUs (NVIDIA_*, as nvidia.com/gpu) do"));
    }
    if (has_accelerator && machine.accelerator_count > 0) {
      container["resources"] = {
          {"limits", {{"nvidia.com/gpu", std::to_string(machine.accelerator_count)}}}};
      if (request.node_selectors) {
        node_selector["cloud.google.com/gke-accelerator"] =
            GkeAcceleratorLabel(machine.accelerator_type);
      }
    }
    if (request.node_selectors && !machine.machine_type.empty()) {
      // The well-known label that holds the cloud's machine type (n1-standard-8 on GKE).
      node_selector["node.kubernetes.io/instance-type"] = machine.machine_type;
    }
  }
  if (!node_selector.empty()) pod_spec["nodeSelector"] = node_selector;
  if (!request.pull_secret.empty()) {
    pod_spec["imagePullSecrets"] = {{{"name", request.pull_secret}}};
  }
  pod_spec["containers"] = {container};
  return nlohmann::json{{"metadata", {{"labels", request.labels}}}, {"spec", pod_spec}};
}

}  // namespace trainpkg::sdk::k8s::internal
