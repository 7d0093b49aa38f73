#include "sdk/hptune/internal/pending_expected_improvement.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "Eigen/Cholesky"
#include "gtest/gtest.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

Eigen::VectorXd At(double x) { return Eigen::VectorXd::Constant(1, x); }

// A GP on a few points of sin(6x) in [0,1], fixed hyperparameters.
GaussianProcess SineGp() {
  Eigen::MatrixXd x(5, 1);
  x << 0.05, 0.3, 0.45, 0.7, 0.95;
  Eigen::VectorXd y(5);
  for (int i = 0; i < 5; ++i) y[i] = std::sin(6 * x(i, 0));
  GpHyperparameters h;
  h.length_scales = Eigen::VectorXd::Constant(1, 0.2);
  h.signal_variance = 1;
  h.noise_variance = 1e-6;
  return GaussianProcess(x, y, h);
}

constexpr double kBest = 0.974;  // sin(6 * 0.3), the best observed

// E[max(f(x) - max(best, max_j f(p_j)), 0)] by brute-force joint sampling.
double BruteForce(const GaussianProcess& gp, const std::vector<double>& pending, double x,
                  double* standard_error) {
  std::vector<GaussianProcess::Posterior> posteriors;
  for (double p : pending) posteriors.push_back(gp.PosteriorAt(At(p)));
  posteriors.push_back(gp.PosteriorAt(At(x)));
  const int q = static_cast<int>(posteriors.size());
  Eigen::MatrixXd covariance(q, q);
  Eigen::VectorXd mean(q);
  for (int a = 0; a < q; ++a) {
    mean[a] = posteriors[a].mean;
    for (int b = 0; b < q; ++b) covariance(a, b) = gp.Covariance(posteriors[a], posteriors[b]);
    covariance(a, a) += 1e-12;
  }
  const Eigen::MatrixXd l = Eigen::LLT<Eigen::MatrixXd>(covariance).matrixL();
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  constexpr int kSamples = 400000;
  double sum = 0, sum_squares = 0;
  for (int s = 0; s < kSamples; ++s) {
    const Eigen::VectorXd f =
        mean + l * Eigen::VectorXd::NullaryExpr(q, [&]() { return normal(rng); });
    const double incumbent = std::max(kBest, f.head(q - 1).maxCoeff());
    const double gain = std::max(f[q - 1] - incumbent, 0.0);
    sum += gain;
    sum_squares += gain * gain;
  }
  const double average = sum / kSamples;
  *standard_error = std::sqrt((sum_squares / kSamples - average * average) / kSamples);
  return average;
}

TEST(PendingExpectedImprovementTest, WithNothingPendingIsPlainExpectedImprovement) {
  const GaussianProcess gp = SineGp();
  std::mt19937_64 rng(1);
  const PendingExpectedImprovement ei(gp, kBest, {}, rng);
  for (double x : {0.2, 0.25, 0.6}) {
    double mean, variance;
    gp.Predict(At(x), &mean, &variance);
    EXPECT_DOUBLE_EQ(ei.Value(At(x)), ExpectedImprovement(mean, variance, kBest)) << x;
  }
}

TEST(PendingExpectedImprovementTest, MatchesBruteForceSamplingOfTheJointPosterior) {
  const GaussianProcess gp = SineGp();
  for (const std::vector<double>& pending :
       {std::vector<double>{0.22}, std::vector<double>{0.22, 0.6}}) {
    std::vector<Eigen::VectorXd> points;
    for (double p : pending) points.push_back(At(p));
    std::mt19937_64 rng(2);
    const PendingExpectedImprovement ei(gp, kBest, points, rng);
    for (double x : {0.18, 0.26, 0.38}) {
      double standard_error;
      const double expected = BruteForce(gp, pending, x, &standard_error);
      ASSERT_GT(expected, 1e-4) << x;
      // The quadrature (one pending) is near exact; 128 Monte-Carlo
      // scenarios (two pending) leave an error of some ten percent.
      const double tolerance = pending.size() == 1 ? 0.02 : 0.25;
      EXPECT_NEAR(ei.Value(At(x)), expected, 4 * standard_error + tolerance * expected)
          << pending.size() << " pending, x " << x;
    }
  }
}

TEST(PendingExpectedImprovementTest, NothingIsGainedAtOrNextToAPendingPoint) {
  const GaussianProcess gp = SineGp();
  std::mt19937_64 rng(3);
  const PendingExpectedImprovement plain(gp, kBest, {}, rng);
  const PendingExpectedImprovement pending(gp, kBest, {At(0.22)}, rng);
  ASSERT_GT(plain.Value(At(0.22)), 0.01);
  EXPECT_LT(pending.Value(At(0.22)), 1e-4 * plain.Value(At(0.22)));
  EXPECT_LT(pending.Value(At(0.225)), 0.1 * plain.Value(At(0.225)));
}

}  // namespace
}  // namespace trainpkg::sdk::hptune::internal
