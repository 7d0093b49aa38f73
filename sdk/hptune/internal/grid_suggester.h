// GRID_SEARCH over integer, categorical and discrete parameters (Vertex AI
// allows no others; validation rejects double parameters).
//
// Enumeration order (Vertex AI does not document one; this is trainpkg's):
// nested loops in StudySpec order, the first parameter outermost and the
// last varying fastest, like Python's itertools.product. Values go in spec
// order: integers from minValue up to maxValue, categorical values as
// listed, discrete values as listed (increasing). A parameter's conditional
// children are loops nested right inside their parent, entered only for the
// parent values that activate them. Points already in the history (pending
// or finished) are skipped, so parallel and repeated calls never repeat a
// point; once every point has been suggested, Suggest returns fewer than
// asked, then none.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_GRID_SUGGESTER_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_GRID_SUGGESTER_H_

#include "sdk/hptune/internal/search_space.h"
#include "sdk/hptune/suggester.h"

namespace trainpkg::sdk::hptune::internal {

class GridSuggester : public Suggester {
 public:
  // REQUIRES: `spec` passes CollectStudySpecIssues with GRID_SEARCH.
  explicit GridSuggester(const jobspec::StudySpec& spec);
  GridSuggester(const GridSuggester&) = delete;
  GridSuggester& operator=(const GridSuggester&) = delete;

  absl::StatusOr<std::vector<TrialParameters>> Suggest(const std::vector<Observation>& history,
                                                       int count) override;

 private:
  const jobspec::StudySpec spec_;
  const SearchSpace space_;  // points into spec_
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_GRID_SUGGESTER_H_
