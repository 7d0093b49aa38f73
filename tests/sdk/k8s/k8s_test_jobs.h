// The jobs the Kubernetes tests render: every pool kind, GPUs, a timeout,
// output directory, labels and a registry that needs credentials.
#ifndef TRAINPKG_TESTS_SDK_K8S_K8S_TEST_JOBS_H_
#define TRAINPKG_TESTS_SDK_K8S_K8S_TEST_JOBS_H_

#include "jobspec/custom_job.h"
#include "sdk/k8s/job_manifests.h"

namespace trainpkg::sdk::k8s::testing {

// Chief (2 T4 GPUs), 3 workers, 1 parameter server, 1 evaluator; or only the
// chief and workers when `with_ps_and_evaluator` is false.
jobspec::CustomJob FourPoolJob(bool with_ps_and_evaluator = true);

// The request the golden files are rendered from.
RenderRequest GoldenRequest(WorkloadKind kind);

}  // namespace trainpkg::sdk::k8s::testing

#endif  // TRAINPKG_TESTS_SDK_K8S_K8S_TEST_JOBS_H_
