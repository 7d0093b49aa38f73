// The CustomJob that runs one trial of a tuning job, as Vertex AI runs it:
//   - displayName "<tuning displayName>-trial-<id>", the tuning job's labels;
//   - the trialJobSpec, with the trial's parameters appended to every
//     worker pool's containerSpec.args (or pythonPackageSpec.args) as
//     `--<parameterId>=<value>` (trial_args.h gives the value text);
//   - baseOutputDirectory <base>/<trial id>/ when `base_output_dir` is set
//     (so AIP_MODEL_DIR is <base>/<trial id>/model/, as on Vertex);
//   - env CLOUD_ML_TRIAL_ID=<trial id>, CLOUD_ML_HP_METRIC_TAG=<metric id>
//     and CLOUD_ML_HP_METRIC_FILE=TrialMetricFile(<trial dir>) for every pool,
//     ahead of the pool's own env, so each trial reports to its own file.
#ifndef TRAINPKG_SDK_HPTUNE_TRIAL_JOB_H_
#define TRAINPKG_SDK_HPTUNE_TRIAL_JOB_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "jobspec/hyperparameter_tuning_job.h"

namespace trainpkg::sdk::hptune {

// <trial_dir>/hypertune/output.metrics
std::filesystem::path TrialMetricFile(const std::filesystem::path& trial_dir);

// <base>/<trial id>/ (the trial's output and metric directory).
std::filesystem::path TrialDir(const std::filesystem::path& base_output_dir,
                               std::string_view trial_id);

// The trial's CustomJob (rules above). `trial_dir` holds the metric file
// and, when `set_base_output_dir`, is the job's baseOutputDirectory.
// InvalidArgument (from TrialArgs) when a parameter does not fit the study.
absl::StatusOr<jobspec::CustomJob> BuildTrialJob(const jobspec::HyperparameterTuningJob& job,
                                                 const jobspec::Trial& trial,
                                                 const std::filesystem::path& trial_dir,
                                                 bool set_base_output_dir);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_TRIAL_JOB_H_
