// RANDOM_SEARCH: every parameter drawn independently, uniformly in its
// scale's space (SearchSpace::Decode of a uniform vector in [0,1]^F), so
// log-scaled parameters are log-uniform and categorical values uniform.
// Conditional children appear exactly when their parent's drawn value
// activates them.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_RANDOM_SUGGESTER_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_RANDOM_SUGGESTER_H_

#include <random>

#include "sdk/hptune/internal/search_space.h"
#include "sdk/hptune/suggester.h"

namespace trainpkg::sdk::hptune::internal {

// A uniform point of `space`.
Point RandomPoint(const SearchSpace& space, std::mt19937_64& rng);

// Parses every observation's parameters; InvalidArgument naming the trial
// index when one does not fit the space.
absl::StatusOr<std::vector<Point>> HistoryPoints(const SearchSpace& space,
                                                 const std::vector<Observation>& history);

class RandomSuggester : public Suggester {
 public:
  // REQUIRES: `spec` passes CollectStudySpecIssues.
  RandomSuggester(const jobspec::StudySpec& spec, uint64_t seed);
  RandomSuggester(const RandomSuggester&) = delete;
  RandomSuggester& operator=(const RandomSuggester&) = delete;

  absl::StatusOr<std::vector<TrialParameters>> Suggest(const std::vector<Observation>& history,
                                                       int count) override;

 private:
  const jobspec::StudySpec spec_;
  const SearchSpace space_;  // points into spec_
  const uint64_t seed_;
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_RANDOM_SUGGESTER_H_
