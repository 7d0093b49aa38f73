#include "sdk/k8s/workload_kind.h"

#include "absl/strings/str_cat.h"

namespace trainpkg::sdk::k8s {

std::string_view WorkloadKindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kJobSet:
      return "jobset";
    case WorkloadKind::kTFJob:
      return "tfjob";
    case WorkloadKind::kPyTorchJob:
      return "pytorchjob";
  }
  return "jobset";
}

absl::StatusOr<WorkloadKind> ParseWorkloadKind(std::string_view name) {
  for (WorkloadKind kind :
       {WorkloadKind::kJobSet, WorkloadKind::kTFJob, WorkloadKind::kPyTorchJob}) {
    if (name == WorkloadKindName(kind)) return kind;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown Kubernetes workload kind \"", std::string(name),
                   "\"; valid: jobset, tfjob (Kubeflow), pytorchjob (Kubeflow)"));
}

std::string_view WorkloadApiVersion(WorkloadKind kind) {
  return kind == WorkloadKind::kJobSet ? "jobset.x-k8s.io/v1alpha2" : "kubeflow.org/v1";
}

std::string_view WorkloadKindField(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kJobSet:
      return "JobSet";
    case WorkloadKind::kTFJob:
      return "TFJob";
    case WorkloadKind::kPyTorchJob:
      return "PyTorchJob";
  }
  return "JobSet";
}

}  // namespace trainpkg::sdk::k8s
