#include "sdk/hptune/internal/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

// Posterior draws of the hyperparameters match the posterior itself,
// integrated on a grid over the whole box of bounds (1-D inputs: theta is
// log length scale, log signal variance, log noise variance).
TEST(GaussianProcessTest, SamplePosteriorDrawsFromTheHyperparameterPosterior) {
  Eigen::MatrixXd x(5, 1);
  Eigen::VectorXd y(5);
  for (int i = 0; i < 5; ++i) {
    x(i, 0) = 0.1 + 0.2 * i;
    y[i] = std::sin(5 * x(i, 0));
  }
  y = (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean());

  constexpr int kGrid = 70;
  const double lower[3] = {std::log(0.01), std::log(0.01), std::log(1e-6)};
  const double upper[3] = {std::log(20.0), std::log(100.0), std::log(1.0)};
  std::vector<double> log_densities;
  std::vector<Eigen::Vector3d> thetas;
  for (int a = 0; a < kGrid; ++a) {
    for (int b = 0; b < kGrid; ++b) {
      for (int c = 0; c < kGrid; ++c) {
        const int index[3] = {a, b, c};
        Eigen::VectorXd theta(3);
        for (int j = 0; j < 3; ++j) {
          theta[j] = lower[j] + (index[j] + 0.5) / kGrid * (upper[j] - lower[j]);
        }
        const double value = LogPosterior(x, y, theta, nullptr);
        if (!std::isfinite(value)) continue;
        log_densities.push_back(value);
        thetas.push_back(theta);
      }
    }
  }
  const double top = *std::max_element(log_densities.begin(), log_densities.end());
  Eigen::Vector3d mean = Eigen::Vector3d::Zero(), second = Eigen::Vector3d::Zero();
  double total = 0;
  for (size_t i = 0; i < thetas.size(); ++i) {
    const double w = std::exp(log_densities[i] - top);
    total += w;
    mean += w * thetas[i];
    second += w * thetas[i].cwiseProduct(thetas[i]);
  }
  mean /= total;
  const Eigen::Vector3d sd = (second / total - mean.cwiseProduct(mean)).cwiseSqrt();

  std::mt19937_64 rng(5);
  constexpr int kDraws = 3000;
  const std::vector<GaussianProcess> draws = GaussianProcess::SamplePosterior(x, y, kDraws, rng);
  ASSERT_EQ(draws.size(), static_cast<size_t>(kDraws));
  Eigen::Vector3d draw_mean = Eigen::Vector3d::Zero(), draw_second = Eigen::Vector3d::Zero();
  for (const GaussianProcess& gp : draws) {
    const GpHyperparameters& h = gp.hyperparameters();
    const Eigen::Vector3d theta(std::log(h.length_scales[0]), std::log(h.signal_variance),
                                std::log(h.noise_variance));
    for (int j = 0; j < 3; ++j) {
      ASSERT_GE(theta[j], lower[j] - 1e-12) << j;
      ASSERT_LE(theta[j], upper[j] + 1e-12) << j;
    }
    draw_mean += theta;
    draw_second += theta.cwiseProduct(theta);
  }
  draw_mean /= kDraws;
  const Eigen::Vector3d draw_sd =
      (draw_second / kDraws - draw_mean.cwiseProduct(draw_mean)).cwiseSqrt();
  for (int j = 0; j < 3; ++j) {
    ASSERT_GT(sd[j], 0.05) << j;  // a posterior wide enough to tell a sampler from a fit
    EXPECT_NEAR(draw_mean[j], mean[j], 0.2 * sd[j]) << j;
    EXPECT_NEAR(draw_sd[j], sd[j], 0.2 * sd[j]) << j;
  }
}

}  // namespace
}  // namespace trainpkg::sdk::hptune::internal
