#include "sdk/hptune/internal/grid_suggester.h"

#include <functional>
#include <set>

#include "base/check.h"
#include "base/status_macros.h"
#include "sdk/hptune/internal/random_suggester.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

// Calls `visit(value)` for each grid value of `spec` in order until it
// returns false; returns false when stopped.
bool ForEachValue(const jobspec::ParameterSpec& spec,
                  const std::function<bool(const jobspec::ParameterValueType&)>& visit) {
  if (const auto* i = std::get_if<jobspec::IntegerValueSpec>(&spec.value_spec)) {
    for (int64_t value = i->min_value; value <= i->max_value; ++value) {
      if (!visit(static_cast<double>(value))) return false;
      if (value == i->max_value) break;  // no overflow at INT64_MAX
    }
  } else if (const auto* c = std::get_if<jobspec::CategoricalValueSpec>(&spec.value_spec)) {
    for (const std::string& value : c->values) {
      if (!visit(value)) return false;
    }
  } else {
    const auto& discrete = std::get<jobspec::DiscreteValueSpec>(spec.value_spec);
    for (double value : discrete.values) {
      if (!visit(value)) return false;
    }
  }
  return true;
}

// Nested loops over `pending` dimensions (first outermost); each chosen value
// puts the children it activates at the front. Returns false when `visit`
// asked to stop.
bool Enumerate(const SearchSpace& space, std::vector<int> pending, Point& point,
               const std::function<bool(const Point&)>& visit) {
  if (pending.empty()) return visit(point);
  const int d = pending.front();
  const auto& dimensions = space.dimensions();
  return ForEachValue(*dimensions[d].spec, [&](const jobspec::ParameterValueType& value) {
    point[d] = value;
    std::vector<int> next;
    for (size_t child = 0; child < dimensions.size(); ++child) {
      if (dimensions[child].parent == d &&
          jobspec::ConditionHolds(*dimensions[child].condition, value)) {
        next.push_back(static_cast<int>(child));
      }
    }
    next.insert(next.end(), pending.begin() + 1, pending.end());
    bool go_on = Enumerate(space, next, point, visit);
    point[d].reset();
    return go_on;
  });
}

}  // namespace

GridSuggester::GridSuggester(const jobspec::StudySpec& spec) : spec_(spec), space_(spec_) {}

absl::StatusOr<std::vector<TrialParameters>> GridSuggester::Suggest(
    const std::vector<Observation>& history, int count) {
  TP_CHECK(count >= 0, "count is {}", count);
  TP_ASSIGN_OR_RETURN(std::vector<Point> points, HistoryPoints(space_, history));
  std::set<std::string> seen;
  for (const Point& point : points) seen.insert(space_.Key(point));
  std::vector<TrialParameters> suggestions;
  if (count == 0) return suggestions;
  std::vector<int> top_level;
  for (size_t d = 0; d < space_.dimensions().size(); ++d) {
    if (space_.dimensions()[d].parent < 0) top_level.push_back(static_cast<int>(d));
  }
  Point point(space_.dimensions().size());
  Enumerate(space_, top_level, point, [&](const Point& candidate) {
    if (seen.insert(space_.Key(candidate)).second) {
      suggestions.push_back(space_.ToTrialParameters(candidate));
    }
    return static_cast<int>(suggestions.size()) < count;
  });
  return suggestions;
}

}  // namespace trainpkg::sdk::hptune::internal
