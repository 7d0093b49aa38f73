// Search algorithms of a hyperparameter tuning study: given what has been
// tried, propose the next trials' parameters.
//
// MakeSuggester picks by StudySpec.algorithm:
//   GRID_SEARCH   every combination of the (integer, categorical, discrete)
//                 values in a fixed order (internal/grid_suggester.h documents it); no
//                 point twice; empty once all are suggested.
//   RANDOM_SEARCH independent uniform draws in each parameter's scale space
//                 (log: uniform in log(x); reverse log: uniform in
//                 -log(max + min - x)); integers and discrete values are the
//                 feasible value nearest the draw; categorical uniform.
//   unspecified   Bayesian optimisation (internal/gaussian_process_suggester.h):
//                 a Latin hypercube for the first trials, then a Gaussian
//                 process (Matérn 5/2, ARD) with expected improvement (its
//                 log, LogEI), averaged over posterior samples of the GP's
//                 hyperparameters; parallel suggestions by sequential greedy
//                 q-point EI, pending trials' outcomes integrated over the
//                 GP posterior.
// Conditional parameters: a child is in a suggestion exactly when its
// parent's suggested value satisfies the child's parent condition.
// Suggestions list parameters in StudySpec order, a parent's active children
// right after it (depth first).
#ifndef TRAINPKG_SDK_HPTUNE_SUGGESTER_H_
#define TRAINPKG_SDK_HPTUNE_SUGGESTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "jobspec/study_spec.h"

namespace trainpkg::sdk::hptune {

// Numbers for double, integer and discrete parameters (integers hold whole
// values), strings for categorical ones.
using TrialParameters = std::vector<jobspec::TrialParameter>;

// One trial the study knows about.
struct Observation {
  TrialParameters parameters;
  // The trial's objective (the study's single metric, as reported: the
  // suggester applies the goal). nullopt when the trial is pending or failed.
  std::optional<double> objective;
  // True while the trial runs: its point is taken as occupied so parallel
  // suggestions differ. A finished trial without an objective (failed,
  // infeasible) has pending == false and objective == nullopt.
  bool pending = false;
};

// Not thread-safe: one caller at a time.
class Suggester {
 public:
  virtual ~Suggester() = default;

  // Up to `count` new points given `history` (everything tried so far,
  // pending trials included). Fewer (possibly none) when the space is
  // exhausted (grid). Deterministic for a given seed and history.
  // Errors: InvalidArgument when `history` holds parameters the study does
  // not define or values of the wrong type. REQUIRES: count >= 0.
  virtual absl::StatusOr<std::vector<TrialParameters>> Suggest(
      const std::vector<Observation>& history, int count) = 0;
};

// The suggester for `spec.algorithm`, seeded with `seed`. `max_trial_count`
// is the study's budget (HyperparameterTuningJob.maxTrialCount; 0 when not
// known): Bayesian optimisation spends at most half of it on its initial
// design. InvalidArgument when the spec does not pass CollectStudySpecIssues
// (the message lists the issues) or the algorithm is unknown.
absl::StatusOr<std::unique_ptr<Suggester>> MakeSuggester(const jobspec::StudySpec& spec,
                                                         uint64_t seed, int max_trial_count = 0);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_SUGGESTER_H_
