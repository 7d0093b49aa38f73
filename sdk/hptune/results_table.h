// The results of a study: a text table sorted by the metric, the best
// trial, and results.json / results.svg in the study's output directory.
#ifndef TRAINPKG_SDK_HPTUNE_RESULTS_TABLE_H_
#define TRAINPKG_SDK_HPTUNE_RESULTS_TABLE_H_

#include <filesystem>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::hptune {

// The final objective of `trial` (its final measurement's value of the
// study's metric); nullopt when it has none.
std::optional<double> TrialObjective(const jobspec::HyperparameterTuningJob& job,
                                     const jobspec::Trial& trial);

// The trial with the best objective by the study's goal (ties: the lower
// id); nullptr when no trial has one. Points into `job`.
const jobspec::Trial* BestTrial(const jobspec::HyperparameterTuningJob& job);

// Columns TRIAL, one per parameter (study order), the metric id, STATE,
// DURATION (end - start, e.g. "12.3s"; "-" while unknown). Rows sorted by the
// objective, best first, trials without one last (by id). Ends with
// "Best trial: <id> (<metric> = <value>): --lr=... ..." or "No trial
// succeeded." when none has an objective. Ids and values are shown through
// base::TerminalSafe (one line each).
std::string FormatResultsTable(const jobspec::HyperparameterTuningJob& job);

// {"tuningJob": <job JSON>, "metricId", "goal", "bestTrialId" (absent when
// none), "trials": [{"id", "state", "parameters": {id: value}, "objective"
// (absent when none), "durationSeconds" (absent while unknown)}] in the
// table's order}.
nlohmann::json ResultsJson(const jobspec::HyperparameterTuningJob& job);

// Writes <dir>/results.json (ResultsJson), <dir>/results.svg
// (metric_plot.h) and <dir>/results.txt (the table), creating `dir`.
// The filesystem's error naming the file.
absl::Status WriteResults(const jobspec::HyperparameterTuningJob& job,
                          const std::filesystem::path& dir);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_RESULTS_TABLE_H_
