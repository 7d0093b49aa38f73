#include "sdk/hptune/internal/search_space.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::hptune::internal {
namespace {

using jobspec::ScaleType;
using ::testing::HasSubstr;

jobspec::StudySpec Study() {
  jobspec::StudySpec spec;
  spec.metrics.push_back({"loss", jobspec::GoalType::kMinimize});
  spec.parameters.push_back({"lr", jobspec::DoubleValueSpec{1e-4, 1e-2, {}}, ScaleType::kLog, {}});
  spec.parameters.push_back(
      {"beta", jobspec::DoubleValueSpec{0.9, 0.999, {}}, ScaleType::kReverseLog, {}});
  spec.parameters.push_back(
      {"units", jobspec::IntegerValueSpec{1, 10, {}}, ScaleType::kLinear, {}});
  jobspec::ParameterSpec optimizer{"opt",
                                   jobspec::CategoricalValueSpec{{"sgd", "adam", "rms"}, {}},
                                   ScaleType::kUnspecified,
                                   {}};
  optimizer.conditional_parameter_specs.push_back(
      {jobspec::ParentCategoricalValues{{"sgd"}},
       {"momentum",
        jobspec::DiscreteValueSpec{{0.5, 0.9, 0.99}, {}},
        ScaleType::kUnspecified,
        {}}});
  spec.parameters.push_back(optimizer);
  return spec;
}

TEST(SearchSpaceTest, LaysOutFeaturesDepthFirst) {
  const jobspec::StudySpec spec = Study();
  SearchSpace space(spec);
  ASSERT_EQ(space.dimensions().size(), 5u);
  EXPECT_EQ(space.dimensions()[4].spec->parameter_id, "momentum");
  EXPECT_EQ(space.dimensions()[4].parent, 3);
  EXPECT_EQ(space.dimensions()[3].feature_count, 3);
  EXPECT_EQ(space.feature_count(), 1 + 1 + 1 + 3 + 1);
}

TEST(SearchSpaceTest, MapsEachScaleToTheUnitInterval) {
  const jobspec::StudySpec spec = Study();
  SearchSpace space(spec);
  EXPECT_NEAR(space.ToUnit(0, 1e-3), 0.5, 1e-12);  // log: the geometric middle
  EXPECT_NEAR(space.FromUnit(0, 0.5), 1e-3, 1e-15);
  EXPECT_NEAR(space.ToUnit(1, 0.9), 0.0, 1e-12);
  EXPECT_NEAR(space.ToUnit(1, 0.999), 1.0, 1e-12);
  // Reverse log spreads values near the maximum out: the top tenth of the
  // range takes more than a tenth of the unit interval.
  EXPECT_LT(space.ToUnit(1, 0.9891), (0.9891 - 0.9) / (0.999 - 0.9));
  for (double u : {0.0, 0.25, 0.7, 1.0}) {
    EXPECT_NEAR(space.ToUnit(1, space.FromUnit(1, u)), u, 1e-9);
    EXPECT_NEAR(space.ToUnit(0, space.FromUnit(0, u)), u, 1e-9);
  }
  EXPECT_NEAR(space.ToUnit(2, 10), 1.0, 1e-12);
}

TEST(SearchSpaceTest, DecodeSnapsToFeasibleValuesAndAppliesConditions) {
  const jobspec::StudySpec spec = Study();
  SearchSpace space(spec);
  Eigen::VectorXd features(7);
  //        lr   beta units  sgd  adam rms  momentum
  features << 0.5, 0.0, 0.49, 0.9, 0.1, 0.2, 0.8;
  Point point = space.Decode(features);
  EXPECT_NEAR(std::get<double>(*point[0]), 1e-3, 1e-15);
  EXPECT_EQ(std::get<double>(*point[2]), 5.0);  // 1 + 0.49 * 9 = 5.41 -> 5
  EXPECT_EQ(std::get<std::string>(*point[3]), "sgd");
  EXPECT_EQ(std::get<double>(*point[4]), 0.9);  // nearest of 0.5, 0.9, 0.99 to 0.82
  features[5] = 1.0;                            // rms wins: momentum inactive
  point = space.Decode(features);
  EXPECT_EQ(std::get<std::string>(*point[3]), "rms");
  EXPECT_FALSE(point[4].has_value());
  EXPECT_EQ(space.ToTrialParameters(point).size(), 4u);
}

TEST(SearchSpaceTest, EncodeInvertsDecodeOnFeasiblePoints) {
  const jobspec::StudySpec spec = Study();
  SearchSpace space(spec);
  absl::StatusOr<Point> point = space.FromTrialParameters({{"lr", 1e-3},
                                                           {"beta", 0.99},
                                                           {"units", 7.0},
                                                           {"opt", std::string("sgd")},
                                                           {"momentum", 0.99}});
  ASSERT_THAT(point, IsOk());
  Point again = space.Decode(space.Encode(*point));
  EXPECT_NEAR(std::get<double>(*again[0]), 1e-3, 1e-15);
  EXPECT_NEAR(std::get<double>(*again[1]), 0.99, 1e-15);
  for (int d : {2, 3, 4}) EXPECT_EQ(again[d], (*point)[d]) << d;
  Eigen::VectorXd encoded = space.Encode(*point);
  EXPECT_EQ(encoded.segment(3, 3), Eigen::Vector3d(1, 0, 0));
}

TEST(SearchSpaceTest, RejectsUnknownIdsAndWrongTypes) {
  const jobspec::StudySpec spec = Study();
  SearchSpace space(spec);
  EXPECT_THAT(std::string(space.FromTrialParameters({{"nope", 1.0}}).status().message()),
              HasSubstr("'nope' is not a parameter of the study"));
  EXPECT_THAT(
      std::string(space.FromTrialParameters({{"opt", std::string("lamb")}}).status().message()),
      HasSubstr("trial parameter 'opt': expected one of sgd, adam, rms"));
  EXPECT_THAT(std::string(space.FromTrialParameters({{"lr", std::string("x")}}).status().message()),
              HasSubstr("expected a number"));
}

}  // namespace
}  // namespace trainpkg::sdk::hptune::internal
