#include "sdk/hptune/internal/power_transform.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

double Skewness(const Eigen::VectorXd& v) {
  const double mean = v.mean();
  const double variance = (v.array() - mean).square().mean();
  return (v.array() - mean).cube().mean() / std::pow(variance, 1.5);
}

TEST(PowerTransformTest, YeoJohnsonIsIncreasingAndContinuousInLambda) {
  for (double lambda : {-2.0, -0.5, 0.0, 1e-12, 1.0, 2.0 - 1e-12, 2.0, 2.5}) {
    double previous = -1e300;
    for (double z = -5; z <= 5; z += 0.25) {
      const double value = YeoJohnson(z, lambda);
      EXPECT_GT(value, previous) << lambda << " " << z;
      previous = value;
    }
  }
  EXPECT_DOUBLE_EQ(YeoJohnson(1.5, 1), 1.5);
  EXPECT_DOUBLE_EQ(YeoJohnson(-1.5, 1), -1.5);
  EXPECT_NEAR(YeoJohnson(1.5, 1e-9), std::log1p(1.5), 1e-8);
  EXPECT_NEAR(YeoJohnson(-1.5, 2 - 1e-9), -std::log1p(1.5), 1e-8);
}

TEST(PowerTransformTest, WarpsSkewedOutputsTowardsSymmetryKeepingTheOrder) {
  std::mt19937_64 rng(4);
  std::normal_distribution<double> normal(0.0, 1.0);
  // A few trials far better than the rest (right skew), and its mirror (the
  // same study minimised), which must warp as well.
  Eigen::VectorXd skewed(40);
  for (Eigen::Index i = 0; i < skewed.size(); ++i) skewed[i] = std::exp(0.8 * normal(rng));
  for (const Eigen::VectorXd& values : {skewed, Eigen::VectorXd(-skewed)}) {
    ASSERT_GT(std::fabs(Skewness(values)), 1.5);
    const Eigen::VectorXd warped = WarpOutputs(values);
    EXPECT_LT(std::fabs(Skewness(warped)), 0.5 * std::fabs(Skewness(values)));
    EXPECT_NEAR(warped.mean(), 0, 1e-9);
    EXPECT_NEAR((warped.array() - warped.mean()).square().mean(), 1, 1e-9);
    std::vector<int> by_value(values.size()), by_warped(values.size());
    std::iota(by_value.begin(), by_value.end(), 0);
    std::iota(by_warped.begin(), by_warped.end(), 0);
    std::sort(by_value.begin(), by_value.end(),
              [&](int a, int b) { return values[a] < values[b]; });
    std::sort(by_warped.begin(), by_warped.end(),
              [&](int a, int b) { return warped[a] < warped[b]; });
    EXPECT_EQ(by_value, by_warped);
  }
}

TEST(PowerTransformTest, LeavesGaussianOutputsNearlyAlone) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd values(200);
  for (Eigen::Index i = 0; i < values.size(); ++i) values[i] = normal(rng);
  EXPECT_NEAR(FitYeoJohnson(values), 1, 0.3);
  // Minimising is maximising the negation: the mirrored l.
  EXPECT_NEAR(FitYeoJohnson(values) + FitYeoJohnson(-values), 2, 1e-6);
  const Eigen::VectorXd constant = Eigen::VectorXd::Constant(5, 3.0);
  EXPECT_TRUE(WarpOutputs(constant).isZero());
}

}  // namespace
}  // namespace trainpkg::sdk::hptune::internal
