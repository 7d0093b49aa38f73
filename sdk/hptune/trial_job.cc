#include "sdk/hptune/trial_job.h"

#include <string>
#include <vector>

#include "base/status_macros.h"
#include "sdk/hptune/trial_args.h"

namespace trainpkg::sdk::hptune {
namespace {

void AddTrialSettings(const std::vector<std::string>& args,
                      const std::vector<jobspec::EnvVar>& trial_env,
                      std::vector<std::string>& pool_args, std::vector<jobspec::EnvVar>& pool_env) {
  // After the pool's own args, where Vertex was seen to put them (the order
  // is not documented).
  pool_args.insert(pool_args.end(), args.begin(), args.end());
  // First, so the pool's own variables may refer to them ($(CLOUD_ML_TRIAL_ID)).
  pool_env.insert(pool_env.begin(), trial_env.begin(), trial_env.end());
}

}  // namespace

std::filesystem::path TrialMetricFile(const std::filesystem::path& trial_dir) {
  return trial_dir / "hypertune" / "output.metrics";
}

std::filesystem::path TrialDir(const std::filesystem::path& base_output_dir,
                               std::string_view trial_id) {
  return base_output_dir / std::string(trial_id);
}

absl::StatusOr<jobspec::CustomJob> BuildTrialJob(const jobspec::HyperparameterTuningJob& job,
                                                 const jobspec::Trial& trial,
                                                 const std::filesystem::path& trial_dir,
                                                 bool set_base_output_dir) {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> args, TrialArgs(job.study_spec, trial.parameters));
  const std::string metric_id =
      job.study_spec.metrics.empty() ? std::string() : job.study_spec.metrics.front().metric_id;
  const std::vector<jobspec::EnvVar> trial_env = {
      // cloudml-hypertune reads the trial id and the metric file; the tag is
      // for the trainer's own code, as on Vertex.
      {.name = "CLOUD_ML_TRIAL_ID", .value = trial.id},
      {.name = "CLOUD_ML_HP_METRIC_TAG", .value = metric_id},
      {.name = "CLOUD_ML_HP_METRIC_FILE", .value = TrialMetricFile(trial_dir).string()},
  };
  jobspec::CustomJob custom_job;
  custom_job.display_name = job.display_name + "-trial-" + trial.id;
  custom_job.labels = job.labels;
  custom_job.job_spec = job.trial_job_spec;
  if (set_base_output_dir) {
    custom_job.job_spec.base_output_directory = trial_dir.string() + "/";
  }
  for (jobspec::WorkerPoolSpec& pool : custom_job.job_spec.worker_pool_specs) {
    if (pool.container_spec) {
      AddTrialSettings(args, trial_env, pool.container_spec->args, pool.container_spec->env);
    }
    if (pool.python_package_spec) {
      AddTrialSettings(args, trial_env, pool.python_package_spec->args,
                       pool.python_package_spec->env);
    }
  }
  return custom_job;
}

}  // namespace trainpkg::sdk::hptune
