#include "tests/sdk/k8s/k8s_test_jobs.h"

namespace trainpkg::sdk::k8s::testing {

jobspec::CustomJob FourPoolJob(bool with_ps_and_evaluator) {
  jobspec::CustomJob job;
  job.display_name = "digits on k8s";
  job.labels = {{"team", "ml"}};
  auto pool = [](int64_t replicas, std::string machine) {
    jobspec::WorkerPoolSpec p;
    p.replica_count = replicas;
    p.machine_spec.emplace();
    p.machine_spec->machine_type = std::move(machine);
    p.container_spec =
        jobspec::ContainerSpec{.image_uri = "localhost:5000/team/trainer:v1",
                               .command = {"/usr/local/bin/trainer"},
                               .args = {"--epochs=2"},
                               .env = {{"DATA", "/data/digits.csv"}, {"WHERE", "$(HOSTNAME)"}}};
    return p;
  };
  jobspec::WorkerPoolSpec chief = pool(1, "n1-standard-8");
  chief.machine_spec->accelerator_type = "NVIDIA_TESLA_T4";
  chief.machine_spec->accelerator_count = 2;
  job.job_spec.worker_pool_specs.push_back(chief);
  job.job_spec.worker_pool_specs.push_back(pool(3, "n1-standard-4"));
  if (with_ps_and_evaluator) {
    job.job_spec.worker_pool_specs.push_back(pool(1, "n1-highmem-2"));
    job.job_spec.worker_pool_specs.push_back(pool(1, "n1-standard-4"));
  }
  job.job_spec.base_output_directory = "gs://bucket/digits/";
  job.job_spec.scheduling.emplace();
  job.job_spec.scheduling->timeout = absl::Hours(1);
  return job;
}

RenderRequest GoldenRequest(WorkloadKind kind) {
  RenderRequest request{.job = FourPoolJob(kind != WorkloadKind::kPyTorchJob),
                        .name = "digits-1",
                        .kubernetes_namespace = "training",
                        .kind = kind};
  request.pull_credentials = {
      {"localhost:5000", registry::Credential{.username = "tester", .password = "s3cret"}}};
  request.job_secret = std::string(64, '5');  // fixed, for golden files
  return request;
}

}  // namespace trainpkg::sdk::k8s::testing
