// Client-side validation of a HyperparameterTuningJob before anything runs,
// in the style of validation.h: every issue names its JSON field path; all
// issues are collected and reported together.
//
// Rules (Vertex AI's documented constraints, reference/vertex.md §2):
//   displayName required, <= 128 characters; labels as for CustomJob;
//   maxTrialCount 1..1000; parallelTrialCount 1..100 and <= maxTrialCount;
//   maxFailedTrialCount >= 0 and <= maxTrialCount;
//   studySpec.metrics: exactly one, metricId non-empty without whitespace;
//   studySpec.parameters: 1..100 (conditional ones included); every parameterId (conditional
//   children included) non-empty, without whitespace, unique; exactly one
//   value spec; double/integer minValue < maxValue (integer: <=), log and
//   reverse-log scales need minValue > 0 (discrete: all values > 0);
//   categorical: 1..1000 values, unique, no scaleType; discrete: 1..1000 values,
//   strictly increasing; conditional children: a parent condition matching
//   the parent's type (integer -> parentIntValues, categorical ->
//   parentCategoricalValues, discrete -> parentDiscreteValues; double
//   parents take no children), 1..1000 values, each feasible for the parent;
//   GRID_SEARCH: only integer, categorical and discrete parameters;
//   at most one automated stopping spec;
//   trialJobSpec: the CustomJob rules of validation.h (paths "trialJobSpec...").
#ifndef TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_VALIDATION_H_
#define TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_VALIDATION_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "jobspec/validation.h"

namespace trainpkg::jobspec {

// The StudySpec rules above; field paths start with `path` ("studySpec").
std::vector<ValidationIssue> CollectStudySpecIssues(const StudySpec& spec, std::string_view path);

std::vector<ValidationIssue> CollectValidationIssues(const HyperparameterTuningJob& job);

// OkStatus, or InvalidArgument listing every issue, one per line.
absl::Status ValidateHyperparameterTuningJob(const HyperparameterTuningJob& job);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_HYPERPARAMETER_TUNING_JOB_VALIDATION_H_
