// How `trainpkg jobs` shows local tuning jobs (sdk/hptune/tuning_job_store.h).
#ifndef TRAINPKG_SDK_CLI_TUNING_JOB_VIEW_H_
#define TRAINPKG_SDK_CLI_TUNING_JOB_VIEW_H_

#include <string>
#include <vector>

#include "jobspec/hyperparameter_tuning_job.h"

namespace trainpkg::cli {

// The job's Vertex JSON, then "Trials:" and the results table
// (sdk/hptune/results_table.h: trial, parameters, metric, state, duration,
// sorted by the metric) with the best trial; each trial's CustomJob id.
std::string FormatTuningJobDescription(const jobspec::HyperparameterTuningJob& job);

// Columns ID, DISPLAY NAME, STATE, TRIALS (finished/started of max), under a
// "Tuning jobs:" heading; "" when `jobs` is empty.
std::string FormatTuningJobTable(const std::vector<jobspec::HyperparameterTuningJob>& jobs);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_TUNING_JOB_VIEW_H_
