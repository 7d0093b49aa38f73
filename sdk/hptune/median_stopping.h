// Median automated stopping (StudySpec.medianAutomatedStoppingSpec).
//
// The rule, as study.proto documents MedianAutomatedStoppingSpec ("stops a
// pending Trial if the Trial's best objective_value is strictly below the
// median 'performance' of all completed Trials reported up to the Trial's
// last measurement. Currently, 'performance' refers to the running average
// of the objective values reported by the Trial in each measurement"), which
// is the median stopping rule of Google Vizier (Golovin et al., KDD 2017,
// §3.2.2):
//   A running trial is stopped at its latest measurement point s (step count,
//   or elapsed seconds with useElapsedDuration) when its best objective at
//   any point <= s is strictly worse than the median, over completed trials,
//   of each completed trial's running average: the mean of its objective
//   values at points <= s.
// Completed trials with no measurement at or before s do not take part; the
// rule decides nothing (keeps the trial) until `min_completed_trials` take
// part. "Worse" follows the goal: lower for MAXIMIZE, higher for MINIMIZE.
#ifndef TRAINPKG_SDK_HPTUNE_MEDIAN_STOPPING_H_
#define TRAINPKG_SDK_HPTUNE_MEDIAN_STOPPING_H_

#include <string>
#include <string_view>
#include <vector>

#include "jobspec/hyperparameter_tuning_job.h"
#include "jobspec/study_spec.h"

namespace trainpkg::sdk::hptune {

// One objective value at one point of a trial.
struct CurvePoint {
  double at = 0;  // step count, or elapsed seconds
  double objective = 0;
};
// A trial's intermediate objective values, in report order.
using Curve = std::vector<CurvePoint>;

// The points of `measurements` carrying `metric_id` (measurements without it
// are skipped); `at` is the step count, or the elapsed duration in seconds
// when `use_elapsed_duration` (measurements without one are skipped).
Curve CurveFromMeasurements(const std::vector<jobspec::Measurement>& measurements,
                            std::string_view metric_id, bool use_elapsed_duration);

struct StoppingDecision {
  bool stop = false;
  // Why, for logs and Trial.infeasibleReason-like notes, when stop:
  // "best objective 0.41 by step 30 is worse than the median 0.52 of 4
  // completed trials' running averages".
  std::string reason;
};

// Default minimum number of completed trials before the rule applies.
inline constexpr int kDefaultMinCompletedTrials = 3;

// Applies the rule above to `running` against `completed`. `goal` is the
// effective goal (kMaximize or kMinimize). REQUIRES: min_completed_trials >= 1.
StoppingDecision MedianStoppingDecision(const Curve& running, const std::vector<Curve>& completed,
                                        jobspec::GoalType goal,
                                        int min_completed_trials = kDefaultMinCompletedTrials);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_MEDIAN_STOPPING_H_
