#include "sdk/hptune/internal/search_space.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

using jobspec::CategoricalValueSpec;
using jobspec::DiscreteValueSpec;
using jobspec::DoubleValueSpec;
using jobspec::IntegerValueSpec;
using jobspec::ScaleType;

struct Range {
  double low;
  double high;
};

Range RangeOf(const jobspec::ParameterSpec& spec) {
  if (const auto* d = std::get_if<DoubleValueSpec>(&spec.value_spec))
    return {d->min_value, d->max_value};
  if (const auto* i = std::get_if<IntegerValueSpec>(&spec.value_spec)) {
    return {static_cast<double>(i->min_value), static_cast<double>(i->max_value)};
  }
  const auto& values = std::get<DiscreteValueSpec>(spec.value_spec).values;
  return {values.front(), values.back()};
}

}  // namespace

SearchSpace::SearchSpace(const jobspec::StudySpec& spec) {
  for (const jobspec::ParameterSpec& parameter : spec.parameters) Add(parameter, -1, nullptr);
}

void SearchSpace::Add(const jobspec::ParameterSpec& spec, int parent,
                      const jobspec::ParentValueCondition* condition) {
  Dimension dimension;
  dimension.spec = &spec;
  dimension.parent = parent;
  dimension.condition = condition;
  dimension.feature_offset = feature_count_;
  if (const auto* c = std::get_if<CategoricalValueSpec>(&spec.value_spec)) {
    dimension.feature_count = static_cast<int>(c->values.size());
  }
  TP_CHECK(!std::holds_alternative<std::monostate>(spec.value_spec),
           "parameter '{}' has no value spec", spec.parameter_id);
  feature_count_ += dimension.feature_count;
  const int index = static_cast<int>(dimensions_.size());
  dimensions_.push_back(dimension);
  for (const jobspec::ConditionalParameterSpec& child : spec.conditional_parameter_specs) {
    Add(child.parameter_spec, index, &child.parent_values);
  }
}

double SearchSpace::ToUnit(int d, double value) const {
  const jobspec::ParameterSpec& spec = *dimensions_[d].spec;
  const Range range = RangeOf(spec);
  // A range of one value has nothing to scale: the middle, not a division by zero.
  if (range.high <= range.low) return 0.5;
  switch (jobspec::EffectiveScale(spec)) {
    case ScaleType::kLog:
      return (std::log(value) - std::log(range.low)) / (std::log(range.high) - std::log(range.low));
    case ScaleType::kReverseLog:
      // UNIT_REVERSE_LOG_SCALE: the log of the mirrored value, so the space is
      // finest near the top of the range (a momentum close to 1).
      return 1 - (std::log(range.high + range.low - value) - std::log(range.low)) /
                     (std::log(range.high) - std::log(range.low));
    default:
      return (value - range.low) / (range.high - range.low);
  }
}

double SearchSpace::FromUnit(int d, double unit) const {
  const jobspec::ParameterSpec& spec = *dimensions_[d].spec;
  const Range range = RangeOf(spec);
  if (range.high <= range.low) return range.low;
  unit = std::clamp(unit, 0.0, 1.0);
  double value;
  switch (jobspec::EffectiveScale(spec)) {
    case ScaleType::kLog:
      value = std::exp(std::log(range.low) + unit * (std::log(range.high) - std::log(range.low)));
      break;
    case ScaleType::kReverseLog:
      value =
          range.high + range.low -
          std::exp(std::log(range.low) + (1 - unit) * (std::log(range.high) - std::log(range.low)));
      break;
    default:
      value = range.low + unit * (range.high - range.low);
  }
  return std::clamp(value, range.low, range.high);
}

bool SearchSpace::Active(int d, const Point& point) const {
  const Dimension& dimension = dimensions_[d];
  if (dimension.parent < 0) return true;
  const auto& parent_value = point[dimension.parent];
  return parent_value.has_value() && jobspec::ConditionHolds(*dimension.condition, *parent_value);
}

absl::StatusOr<Point> SearchSpace::FromTrialParameters(const TrialParameters& parameters) const {
  Point point(dimensions_.size());
  for (const jobspec::TrialParameter& parameter : parameters) {
    auto it = std::find_if(dimensions_.begin(), dimensions_.end(), [&](const Dimension& d) {
      return d.spec->parameter_id == parameter.parameter_id;
    });
    if (it == dimensions_.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "trial parameter '{}' is not a parameter of the study", parameter.parameter_id));
    }
    const jobspec::ParameterSpec& spec = *it->spec;
    if (const auto* c = std::get_if<CategoricalValueSpec>(&spec.value_spec)) {
      const std::string* text = std::get_if<std::string>(&parameter.value);
      if (text == nullptr ||
          std::find(c->values.begin(), c->values.end(), *text) == c->values.end()) {
        return absl::InvalidArgumentError(fmt::format("trial parameter '{}': expected one of {}",
                                                      parameter.parameter_id,
                                                      fmt::join(c->values, ", ")));
      }
    } else if (!std::holds_alternative<double>(parameter.value)) {
      return absl::InvalidArgumentError(
          fmt::format("trial parameter '{}': expected a number, got the string '{}'",
                      parameter.parameter_id, std::get<std::string>(parameter.value)));
    }
    point[it - dimensions_.begin()] = parameter.value;
  }
  return point;
}

TrialParameters SearchSpace::ToTrialParameters(const Point& point) const {
  TrialParameters parameters;
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    if (point[d].has_value()) parameters.push_back({dimensions_[d].spec->parameter_id, *point[d]});
  }
  return parameters;
}

Eigen::VectorXd SearchSpace::Encode(const Point& point) const {
  Eigen::VectorXd features = Eigen::VectorXd::Zero(feature_count_);
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    if (!point[d].has_value()) continue;
    const Dimension& dimension = dimensions_[d];
    // One-hot: categories have no order, and every two are equally far apart.
    if (const auto* c = std::get_if<CategoricalValueSpec>(&dimension.spec->value_spec)) {
      const std::string& text = std::get<std::string>(*point[d]);
      auto it = std::find(c->values.begin(), c->values.end(), text);
      features[dimension.feature_offset + (it - c->values.begin())] = 1;
    } else {
      features[dimension.feature_offset] =
          std::clamp(ToUnit(static_cast<int>(d), std::get<double>(*point[d])), 0.0, 1.0);
    }
  }
  return features;
}

Point SearchSpace::Decode(const Eigen::VectorXd& features) const {
  TP_CHECK(features.size() == feature_count_, "{} features for a space of {}", features.size(),
           feature_count_);
  Point point(dimensions_.size());
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    const int index = static_cast<int>(d);
    // Parents come before their children (Add's order), so a child's condition
    // is checked against a value already decoded.
    if (!Active(index, point)) continue;
    const Dimension& dimension = dimensions_[d];
    const auto& spec = dimension.spec->value_spec;
    const double unit = std::clamp(features[dimension.feature_offset], 0.0, 1.0);
    if (const auto* c = std::get_if<CategoricalValueSpec>(&spec)) {
      Eigen::Index best = 0;
      features.segment(dimension.feature_offset, dimension.feature_count).maxCoeff(&best);
      point[d] = c->values[best];
    } else if (const auto* i = std::get_if<IntegerValueSpec>(&spec)) {
      double value = std::round(FromUnit(index, unit));
      point[d] =
          std::clamp(value, static_cast<double>(i->min_value), static_cast<double>(i->max_value));
    } else if (const auto* v = std::get_if<DiscreteValueSpec>(&spec)) {
      double best_value = v->values.front();
      double best_distance = 2;
      for (double candidate : v->values) {
        double distance = std::fabs(ToUnit(index, candidate) - unit);
        if (distance < best_distance) {
          best_distance = distance;
          best_value = candidate;
        }
      }
      point[d] = best_value;
    } else {
      point[d] = FromUnit(index, unit);
    }
  }
  return point;
}

std::string SearchSpace::Key(const Point& point) const {
  std::string key;
  for (const auto& value : point) {
    if (!value.has_value()) {
      key += "-";
    } else if (const auto* text = std::get_if<std::string>(&*value)) {
      key += fmt::format("s{}", *text);
    } else {
      key += fmt::format("n{}", std::get<double>(*value));
    }
    key += '\x1f';
  }
  return key;
}

}  // namespace trainpkg::sdk::hptune::internal
