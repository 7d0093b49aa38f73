// Tuning job files as `trainpkg hptune --config` takes them: YAML (or JSON)
// in one of two forms.
//
// REST form (as `gcloud ai hp-tuning-jobs create --config` and the REST API):
//   {displayName, studySpec: {...}, maxTrialCount, parallelTrialCount,
//    maxFailedTrialCount, trialJobSpec: {workerPoolSpecs: ...}, labels}
//   trialJobSpec.workerPoolSpecs may be a single mapping (gcloud's form).
// Python SDK form (HyperparameterTuningJob(...) keyword arguments), chosen
// when the top level has metric_spec or parameter_spec:
//   {display_name, metric_spec, parameter_spec, max_trial_count,
//    parallel_trial_count, max_failed_trial_count, search_algorithm,
//    measurement_selection (default 'best', as the SDK), labels,
//    trial_job_spec: <CustomJobSpec in either spelling>}
//   See study_spec_python_form.h for metric_spec / parameter_spec.
// Nothing is validated beyond the shape; call ValidateHyperparameterTuningJob.
#ifndef TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_FILE_H_
#define TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_FILE_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/hyperparameter_tuning_job.h"

namespace trainpkg::jobspec {

// Parses tuning-job file text in either form.
absl::StatusOr<HyperparameterTuningJob> ParseHyperparameterTuningJobFile(std::string_view text);

// Reads and parses a file; errors are prefixed with the file's path.
absl::StatusOr<HyperparameterTuningJob> LoadHyperparameterTuningJobFile(
    const std::filesystem::path& path);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_FILE_H_
