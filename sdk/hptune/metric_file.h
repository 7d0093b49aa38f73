// Reading back the hypertune metric file a trial writes
// (trainer_runtime/train/hypertune_reporter.h, cloudml-hypertune's format:
// one JSON object per line, reference/vertex.md §4), and choosing a trial's
// final measurement.
//
// Where: the tuning service sets CLOUD_ML_HP_METRIC_FILE for every trial to
// TrialMetricFile(<trial output dir>) (trial_job.h), so parallel local
// trials do not share cloudml-hypertune's default /tmp/hypertune path.
#ifndef TRAINPKG_SDK_HPTUNE_METRIC_FILE_H_
#define TRAINPKG_SDK_HPTUNE_METRIC_FILE_H_

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "jobspec/study_spec.h"

namespace trainpkg::sdk::hptune {

// The measurements in metric-file `text`, in file order. A line counts when
// it carries `metric_id` or cloudml-hypertune's default tag
// "training/hptuning/metric" (a trainer that reported without a tag); its
// value (a string or number) becomes the measurement's metric `metric_id`,
// global_step its step count, and, when `trial_start` is given, timestamp -
// trial_start its elapsed duration. Lines without either tag are skipped.
// Errors: InvalidArgument "line N: ..." for a line that is not a JSON object
// or whose value or global_step is not a number. A trainer may be rewriting
// the file while it is read (atomically, by rename), so the text is always
// whole.
absl::StatusOr<std::vector<jobspec::Measurement>> ParseHypertuneMetrics(
    std::string_view text, std::string_view metric_id,
    std::optional<absl::Time> trial_start = std::nullopt);

// The largest metric file read: hypertune keeps 100 entries of a few
// hundred bytes each.
inline constexpr size_t kMaxMetricFileBytes = 1 << 20;

// Reads and parses `path`; an absent file is no measurements (the trial has
// not reported yet). Errors are prefixed with the path; InvalidArgument for
// a symbolic link, a file that is not a regular file or one larger than
// kMaxMetricFileBytes (the trial writing it may be hostile).
absl::StatusOr<std::vector<jobspec::Measurement>> ReadHypertuneMetrics(
    const std::filesystem::path& path, std::string_view metric_id,
    std::optional<absl::Time> trial_start = std::nullopt);

// The final measurement: the last measurement carrying `metric_id` (LAST or
// unspecified selection) or the best one by `goal` (BEST); nullopt when
// none carries the metric.
std::optional<jobspec::Measurement> SelectFinalMeasurement(
    const std::vector<jobspec::Measurement>& measurements, std::string_view metric_id,
    jobspec::MeasurementSelection selection, jobspec::GoalType goal);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_METRIC_FILE_H_
