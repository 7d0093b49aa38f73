#include "tests/sdk/hptune/timeline_study.h"

namespace trainpkg::sdk::hptune::testing {

jobspec::HyperparameterTuningJob TimelineStudy(const std::string& display_name, int max_trials,
                                               int parallel, const std::string& sleep,
                                               const std::filesystem::path& timeline_dir) {
  jobspec::HyperparameterTuningJob job;
  job.display_name = display_name;
  job.max_trial_count = max_trials;
  job.parallel_trial_count = parallel;
  job.study_spec.metrics.push_back({"score", jobspec::GoalType::kMaximize});
  job.study_spec.parameters.push_back(
      {"x", jobspec::DoubleValueSpec{0.0, 1.0, {}}, jobspec::ScaleType::kLinear, {}});
  job.study_spec.algorithm = jobspec::SearchAlgorithm::kRandomSearch;
  jobspec::WorkerPoolSpec pool;
  pool.replica_count = 1;
  pool.machine_spec = jobspec::MachineSpec{};
  pool.machine_spec->machine_type = "n1-standard-4";
  pool.container_spec = jobspec::ContainerSpec{};
  pool.container_spec->image_uri = std::string("local:") + TIMELINE_TRAINER;
  pool.container_spec->args = {"--sleep=" + sleep};
  pool.container_spec->env = {{"TIMELINE_DIR", timeline_dir.string()}};
  job.trial_job_spec.worker_pool_specs.push_back(pool);
  return job;
}

}  // namespace trainpkg::sdk::hptune::testing
