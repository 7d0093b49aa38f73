// Bayesian optimisation, the default algorithm (ALGORITHM_UNSPECIFIED).
//
// - The first InitialRandomTrials(space) trials (max(5, F + 1) for F
//   features), and every trial while fewer than 2 have an objective, are
//   random (random_suggester.h).
// - Then a Gaussian process (gaussian_process.h) is fitted to the finished
//   trials' objectives (negated when the goal is MINIMIZE, standardised), on
//   the encoded features (search_space.h). Trials that failed (no objective,
//   not pending) are left out.
// - The next point maximises expected improvement over the best objective so
//   far: EI is evaluated on kRandomCandidates uniform points and
//   kLocalCandidates Gaussian perturbations (sd 0.1 in feature space) of each
//   of the best 5 trials, every candidate snapped to a feasible point, and
//   the best 5 distinct candidates are refined by NLopt's BOBYQA (Subplex in
//   one dimension) over the numeric features. A point already in the history
//   is never suggested again while an unseen one is found.
// - Parallel suggestions use the constant liar (Ginsbourger, Le Riche and
//   Carraro 2010): pending trials, and the points already chosen in this
//   call, enter the GP as if they had returned a constant lie, the mean of
//   the finished objectives ("CL-mean"; the pessimistic CL-min distorted the
//   model badly on skewed objectives such as Branin in bench/hptune). The GP
//   keeps the hyperparameters fitted once per call on the finished trials;
//   the lies shrink its variance near the pending points, so further picks
//   go elsewhere.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_SUGGESTER_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_SUGGESTER_H_

#include "sdk/hptune/internal/search_space.h"
#include "sdk/hptune/suggester.h"

namespace trainpkg::sdk::hptune::internal {

class GaussianProcessSuggester : public Suggester {
 public:
  static constexpr int kRandomCandidates = 2000;
  static constexpr int kLocalCandidates = 200;

  static int InitialRandomTrials(const SearchSpace& space);

  // REQUIRES: `spec` passes CollectStudySpecIssues.
  GaussianProcessSuggester(const jobspec::StudySpec& spec, uint64_t seed);
  GaussianProcessSuggester(const GaussianProcessSuggester&) = delete;
  GaussianProcessSuggester& operator=(const GaussianProcessSuggester&) = delete;

  absl::StatusOr<std::vector<TrialParameters>> Suggest(const std::vector<Observation>& history,
                                                       int count) override;

 private:
  const jobspec::StudySpec spec_;
  const SearchSpace space_;  // points into spec_
  const uint64_t seed_;
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_SUGGESTER_H_
