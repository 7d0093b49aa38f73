#include "sdk/hptune/internal/random_suggester.h"

#include "base/check.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "sdk/hptune/internal/call_rng.h"

namespace trainpkg::sdk::hptune::internal {

Point RandomPoint(const SearchSpace& space, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::VectorXd features(space.feature_count());
  for (Eigen::Index i = 0; i < features.size(); ++i) features[i] = uniform(rng);
  return space.Decode(features);
}

absl::StatusOr<std::vector<Point>> HistoryPoints(const SearchSpace& space,
                                                 const std::vector<Observation>& history) {
  std::vector<Point> points;
  points.reserve(history.size());
  for (size_t i = 0; i < history.size(); ++i) {
    absl::StatusOr<Point> point = space.FromTrialParameters(history[i].parameters);
    if (!point.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("history[{}]: {}", i, std::string(point.status().message())));
    }
    points.push_back(*std::move(point));
  }
  return points;
}

RandomSuggester::RandomSuggester(const jobspec::StudySpec& spec, uint64_t seed)
    : spec_(spec), space_(spec_), seed_(seed) {}

absl::StatusOr<std::vector<TrialParameters>> RandomSuggester::Suggest(
    const std::vector<Observation>& history, int count) {
  TP_CHECK(count >= 0, "count is {}", count);
  TP_RETURN_IF_ERROR(HistoryPoints(space_, history).status());
  std::mt19937_64 rng = CallRng(seed_, history.size());
  std::vector<TrialParameters> suggestions;
  for (int i = 0; i < count; ++i) {
    suggestions.push_back(space_.ToTrialParameters(RandomPoint(space_, rng)));
  }
  return suggestions;
}

}  // namespace trainpkg::sdk::hptune::internal
