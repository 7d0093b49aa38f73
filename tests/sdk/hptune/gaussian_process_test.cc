#include "sdk/hptune/internal/gaussian_process.h"

#include <cmath>

#include "gtest/gtest.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

TEST(GaussianProcessTest, LogPosteriorGradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::MatrixXd x(8, 2);
  Eigen::VectorXd y(8);
  for (int i = 0; i < 8; ++i) {
    x(i, 0) = uniform(rng);
    x(i, 1) = uniform(rng);
    y[i] = std::sin(6 * x(i, 0)) + x(i, 1);
  }
  Eigen::VectorXd theta(4);
  theta << std::log(0.3), std::log(0.7), std::log(1.5), std::log(1e-2);
  Eigen::VectorXd gradient;
  const double value = LogPosterior(x, y, theta, &gradient);
  ASSERT_TRUE(std::isfinite(value));
  for (int j = 0; j < 4; ++j) {
    Eigen::VectorXd plus = theta, minus = theta;
    plus[j] += 1e-5;
    minus[j] -= 1e-5;
    const double numeric =
        (LogPosterior(x, y, plus, nullptr) - LogPosterior(x, y, minus, nullptr)) / 2e-5;
    EXPECT_NEAR(gradient[j], numeric, 1e-4 * std::max(1.0, std::fabs(numeric))) << j;
  }
}

TEST(GaussianProcessTest, FitInterpolatesASmoothFunction) {
  Eigen::MatrixXd x(9, 1);
  Eigen::VectorXd y(9);
  for (int i = 0; i < 9; ++i) {
    x(i, 0) = i / 8.0;
    y[i] = std::sin(4 * x(i, 0));
  }
  y = (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean());
  std::mt19937_64 rng(1);
  GaussianProcess gp = GaussianProcess::Fit(x, y, rng);
  double mean, variance;
  gp.Predict(x.row(4).transpose(), &mean, &variance);
  EXPECT_NEAR(mean, y[4], 0.05);
  EXPECT_LT(variance, 0.01);
  // Between training points the posterior stays close and is less certain.
  Eigen::VectorXd between(1);
  between << 4.5 / 8.0;
  double mean_between, variance_between;
  gp.Predict(between, &mean_between, &variance_between);
  EXPECT_GT(variance_between, variance);
  EXPECT_NEAR(mean_between, (y[4] + y[5]) / 2, 0.2);
}

}  // namespace
}  // namespace trainpkg::sdk::hptune::internal
