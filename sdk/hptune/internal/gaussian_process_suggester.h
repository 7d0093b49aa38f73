// Bayesian optimisation, the default algorithm (ALGORITHM_UNSPECIFIED).
//
// - The first InitialTrials(space, budget) trials (max(5, 2F) for F
//   features, as Ax's default, but at most half a known budget, at least 2,
//   so a small study still has model-guided trials) form a Latin hypercube in feature space drawn
//   from the seed (each feature's range cut into that many equal strata, one point per stratum, a
//   random point within it), so the initial trials cover every feature's range evenly; while fewer
//   than 2 trials have an objective, further ones are random (random_suggester.h).
// - Then Gaussian processes (gaussian_process.h) are conditioned on the
//   finished trials' objectives (negated when the goal is MINIMIZE, then
//   standardised and Yeo–Johnson warped: power_transform.h), on the encoded
//   features (search_space.h): kHyperparameterSamples of them, with
//   hyperparameters drawn from their posterior (GaussianProcess::
//   SamplePosterior), so the acquisition is integrated over the
//   hyperparameters instead of trusting one fit. Trials that failed (no
//   objective, not pending) are left out.
// - The next point maximises the expected improvement over the best objective
//   so far, averaged over those GPs, with the pending trials and the points
//   already chosen in this call as pending points (pending_expected_
//   improvement.h: sequential greedy q-point EI; their outcomes stay
//   uncertain rather than being replaced by a lie). What is maximised is its
//   logarithm computed without underflow (LogEI), so candidates far from the
//   incumbent are still ranked. It is evaluated on kRandomCandidates uniform points and
//   kLocalCandidates Gaussian perturbations (sd 0.1 in feature space) of each
//   of the best 5 trials, every candidate snapped to a feasible point, and
//   the best 5 distinct candidates are refined by NLopt's BOBYQA (Subplex in
//   one dimension) over the numeric features. A point already in the history
//   is never suggested again while an unseen one is found.
// - The hyperparameters are sampled once per call, on the finished trials.
// - Past kMaxModelTrials finished trials, the GPs are conditioned on a subset
//   of them (ModelTrials): the best half of the subset, where the search
//   refines, and the rest drawn at random from the other trials, so the
//   model still sees the whole space. Fitting and sampling cost the cube of
//   the trials they see, so this keeps a suggestion's cost flat past the
//   threshold (docs/adr/2026-11-28-gp-trial-subset.md).
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_SUGGESTER_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_SUGGESTER_H_

#include <random>
#include <vector>

#include "sdk/hptune/internal/search_space.h"
#include "sdk/hptune/suggester.h"

namespace trainpkg::sdk::hptune::internal {

class GaussianProcessSuggester : public Suggester {
 public:
  static constexpr int kRandomCandidates = 2000;
  static constexpr int kLocalCandidates = 200;
  static constexpr int kHyperparameterSamples = 8;
  static constexpr int kMaxModelTrials = 100;

  // Indices (ascending) of the finished trials the GPs are conditioned on,
  // given their objectives `y` (higher is better): all of them up to `max`;
  // past it the max/2 best, then the rest of `max` drawn uniformly from
  // the others with `rng` (consumed only then). REQUIRES: max >= 2.
  static std::vector<int> ModelTrials(const std::vector<double>& y, int max, std::mt19937_64& rng);

  // `max_trial_count` is the study's budget, 0 when not known.
  static int InitialTrials(const SearchSpace& space, int max_trial_count);

  // REQUIRES: `spec` passes CollectStudySpecIssues; max_trial_count >= 0.
  GaussianProcessSuggester(const jobspec::StudySpec& spec, uint64_t seed, int max_trial_count);
  GaussianProcessSuggester(const GaussianProcessSuggester&) = delete;
  GaussianProcessSuggester& operator=(const GaussianProcessSuggester&) = delete;

  absl::StatusOr<std::vector<TrialParameters>> Suggest(const std::vector<Observation>& history,
                                                       int count) override;

 private:
  const jobspec::StudySpec spec_;
  const SearchSpace space_;  // points into spec_
  const uint64_t seed_;
  const int initial_trials_;
  const Eigen::MatrixXd initial_design_;  // initial_trials_ x F
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_SUGGESTER_H_
