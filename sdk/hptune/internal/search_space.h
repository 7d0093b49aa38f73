// The search space of a StudySpec as the suggesters see it: every parameter
// (conditional children included, depth first, so a parent comes before its
// children) as a dimension, and a point as one optional value per dimension
// (nullopt: the parameter is inactive because its parent condition fails).
//
// Points are also "encoded" as feature vectors in [0,1]^F for the Gaussian
// process: a double, integer or discrete parameter is one feature, its value
// mapped to [0,1] in its scale's space (linear: (x-min)/(max-min); log: the
// same on log x; reverse log: 1 - (log(max+min-x) - log min)/(log max - log
// min)); a categorical parameter with k values is k one-hot features. An
// inactive parameter encodes as all zeros. Decoding goes the other way from
// any vector in [0,1]^F to the nearest feasible point: integers round to the
// nearest integer, discrete parameters take the value nearest in the scale's
// space, categorical ones the value with the largest feature.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_SEARCH_SPACE_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_SEARCH_SPACE_H_

#include <optional>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "jobspec/study_spec.h"
#include "sdk/hptune/suggester.h"

namespace trainpkg::sdk::hptune::internal {

using Point = std::vector<std::optional<jobspec::ParameterValueType>>;

struct Dimension {
  const jobspec::ParameterSpec* spec = nullptr;  // into the StudySpec the space was built from
  int parent = -1;                               // index of the parent dimension, -1 at top level
  const jobspec::ParentValueCondition* condition = nullptr;  // null at top level
  int feature_offset = 0;
  int feature_count = 1;  // k for categorical, else 1
};

class SearchSpace {
 public:
  // REQUIRES: `spec` passes CollectStudySpecIssues and outlives the space.
  explicit SearchSpace(const jobspec::StudySpec& spec);

  const std::vector<Dimension>& dimensions() const { return dimensions_; }
  int feature_count() const { return feature_count_; }

  // The point of a trial's parameters. InvalidArgument for ids the study does
  // not define and for values of the wrong type.
  absl::StatusOr<Point> FromTrialParameters(const TrialParameters& parameters) const;
  // The active parameters of `point`, in dimension order.
  TrialParameters ToTrialParameters(const Point& point) const;

  Eigen::VectorXd Encode(const Point& point) const;
  // REQUIRES: features.size() == feature_count(); values are clamped to [0,1].
  Point Decode(const Eigen::VectorXd& features) const;

  // A text key equal for equal points (for duplicate detection).
  std::string Key(const Point& point) const;

  // The unit position of a number in dimension `d`'s scale space, and back
  // (continuous; Decode snaps). REQUIRES: d is not categorical.
  double ToUnit(int d, double value) const;
  double FromUnit(int d, double unit) const;

 private:
  void Add(const jobspec::ParameterSpec& spec, int parent,
           const jobspec::ParentValueCondition* condition);
  // Whether dimension d is active given the values decided for earlier ones.
  bool Active(int d, const Point& point) const;

  std::vector<Dimension> dimensions_;
  int feature_count_ = 0;
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_SEARCH_SPACE_H_
