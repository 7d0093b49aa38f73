// Which Kubernetes resource runs a CustomJob: a JobSet (kubernetes-sigs/jobset,
// one Job per replica) or, on clusters running the Kubeflow training
// operator, a TFJob or a PyTorchJob.
#ifndef TRAINPKG_SDK_K8S_WORKLOAD_KIND_H_
#define TRAINPKG_SDK_K8S_WORKLOAD_KIND_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::k8s {

enum class WorkloadKind { kJobSet, kTFJob, kPyTorchJob };

// "jobset", "tfjob", "pytorchjob": the names the CLI takes.
std::string_view WorkloadKindName(WorkloadKind kind);
// InvalidArgument listing the valid names.
absl::StatusOr<WorkloadKind> ParseWorkloadKind(std::string_view name);

// The resource's apiVersion and kind: "jobset.x-k8s.io/v1alpha2" "JobSet",
// "kubeflow.org/v1" "TFJob" / "PyTorchJob".
std::string_view WorkloadApiVersion(WorkloadKind kind);
std::string_view WorkloadKindField(WorkloadKind kind);

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_WORKLOAD_KIND_H_
