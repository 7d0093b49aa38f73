// submit_job TRAINER OUTPUT_DIR: runs a CustomJob of one chief and one
// worker, each replica the executable TRAINER as a local process, with
// OUTPUT_DIR as the job's base output directory (the chief's model lands in
// OUTPUT_DIR/model). Prints the job's state lines and the replicas' output;
// exits 0 when the job SUCCEEDED, 1 otherwise, 2 for a usage error.
#include <trainpkg/jobspec/custom_job.h>
#include <trainpkg/jobspec/job_state.h>
#include <trainpkg/sdk/custom_job.h>

#include <filesystem>
#include <iostream>
#include <string>

namespace jobspec = ::trainpkg::jobspec;
namespace sdk = ::trainpkg::sdk;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: submit_job TRAINER OUTPUT_DIR\n";
    return 2;
  }
  const std::string trainer = std::filesystem::absolute(argv[1]).string();

  jobspec::CustomJob job;
  job.display_name = "downstream-hello";
  job.job_spec.base_output_directory = std::filesystem::absolute(argv[2]).string();
  for (int pool = 0; pool < 2; ++pool) {  // pool 0: the chief; pool 1: the workers
    jobspec::WorkerPoolSpec& spec = job.job_spec.worker_pool_specs.emplace_back();
    spec.machine_spec = jobspec::MachineSpec{.machine_type = "n1-standard-4"};
    spec.replica_count = 1;
    spec.container_spec = jobspec::ContainerSpec{.image_uri = "local:" + trainer};
  }

  absl::StatusOr<sdk::CustomJob> custom_job =
      sdk::CustomJob::Create(job, {.log_stream = &std::cout});
  if (!custom_job.ok()) {
    std::cerr << "submit_job: error: " << custom_job.status() << "\n";
    return 1;
  }
  absl::StatusOr<jobspec::CustomJob> done = custom_job->Run();
  if (!done.ok()) {
    std::cerr << "submit_job: error: " << done.status() << "\n";
    return 1;
  }
  std::cout << "submit_job: " << custom_job->job_id() << " " << jobspec::JobStateName(done->state)
            << "\n";
  if (done->error) std::cout << "submit_job: error: " << done->error->message << "\n";
  return done->state == jobspec::JobState::kSucceeded ? 0 : 1;
}
