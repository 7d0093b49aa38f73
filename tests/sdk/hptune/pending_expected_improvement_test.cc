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

// log EI from the closed form in long double (64-bit mantissa, exponents to
// 1e-4932): an independent reference down to z = -100, where double's EI
// has long underflowed.
double LongDoubleLogExpectedImprovement(double mean, double variance, double best) {
  const long double sigma = std::sqrt(static_cast<long double>(variance));
  const long double z = (mean - best) / sigma;
  const long double cdf = 0.5L * std::erfc(-z / std::sqrt(2.0L));
  const long double pdf = std::exp(-0.5L * z * z) / std::sqrt(2 * static_cast<long double>(M_PI));
  return static_cast<double>(std::log(sigma * (z * cdf + pdf)));
}

TEST(LogExpectedImprovementTest, MatchesTheClosedFormAndStaysFiniteWhereItUnderflows) {
  for (double sigma : {1e-3, 0.5, 2.0}) {
    for (double z : {3.0, 0.5, 0.0, -0.999, -1.0, -1.001, -3.0, -8.0, -20.0, -24.999, -25.0,
                     -25.001, -38.0, -60.0, -100.0}) {
      const double best = 0.3, mean = best + z * sigma;
      const double expected = LongDoubleLogExpectedImprovement(mean, sigma * sigma, best);
      EXPECT_NEAR(LogExpectedImprovement(mean, sigma * sigma, best), expected,
                  1e-10 * std::max(1.0, std::fabs(expected)))
          << "sigma " << sigma << " z " << z;
      if (z > -5) {
        EXPECT_NEAR(LogExpectedImprovement(mean, sigma * sigma, best),
                    std::log(ExpectedImprovement(mean, sigma * sigma, best)), 1e-9)
            << "sigma " << sigma << " z " << z;
      }
    }
  }
  // Far below, plain EI is 0 or rounding noise; log EI keeps decreasing.
  EXPECT_EQ(ExpectedImprovement(-40, 1, 0), 0);
  double previous = LogExpectedImprovement(-1, 1, 0);
  for (double mean = -2; mean >= -1000; mean *= 1.5) {
    const double value = LogExpectedImprovement(mean, 1, 0);
    ASSERT_TRUE(std::isfinite(value)) << mean;
    EXPECT_LT(value, previous) << mean;
    previous = value;
  }
}

TEST(PendingExpectedImprovementTest, LogValueIsTheLogOfValueAndFiniteWhereValueUnderflows) {
  const GaussianProcess gp = SineGp();
  for (const std::vector<double>& pending :
       {std::vector<double>{}, std::vector<double>{0.22}, std::vector<double>{0.22, 0.6}}) {
    std::vector<Eigen::VectorXd> points;
    for (double p : pending) points.push_back(At(p));
    std::mt19937_64 rng(4);
    const PendingExpectedImprovement ei(gp, kBest, points, rng);
    for (double x : {0.18, 0.26, 0.38, 0.5}) {
      EXPECT_NEAR(ei.LogValue(At(x)), std::log(ei.Value(At(x))), 1e-9)
          << pending.size() << " pending, x " << x;
    }
    // At the observed trough sin(6 * 0.7) = -0.87 the posterior sd is about
    // 1e-3, some 1800 sd below the best: EI is 0 in double, log EI is not.
    EXPECT_EQ(ei.Value(At(0.7)), 0) << pending.size() << " pending";
    const double log_value = ei.LogValue(At(0.7));
    EXPECT_TRUE(std::isfinite(log_value)) << pending.size() << " pending";
    EXPECT_LT(log_value, ei.LogValue(At(0.5))) << pending.size() << " pending";
  }
}

}  // namespace
}  // namespace trainpkg::sdk::hptune::internal
