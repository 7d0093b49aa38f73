#include "sdk/hptune/internal/pending_expected_improvement.h"

#include <algorithm>
#include <cmath>

#include "Eigen/Cholesky"
#include "Eigen/Eigenvalues"
#include "base/check.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

// Gauss–Legendre rule on [-1, 1] (Golub–Welsch): the nodes are the
// eigenvalues of the Jacobi matrix of the Legendre polynomials, the weights
// twice the squared first components of its eigenvectors.
void LegendreRule(int nodes, Eigen::VectorXd* points, Eigen::VectorXd* weights) {
  Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(nodes, nodes);
  for (int k = 1; k < nodes; ++k) {
    jacobi(k - 1, k) = jacobi(k, k - 1) = k / std::sqrt(4.0 * k * k - 1);
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(jacobi);
  *points = solver.eigenvalues();
  *weights = 2 * solver.eigenvectors().row(0).transpose().array().square();
}

// Nodes and weights for E[g(z)], z ~ N(0,1), where g has a kink at `kink`:
// Gauss–Legendre on [-kLimit, kink] and [kink, kLimit] with the normal
// density folded into the weights.
void SplitNormalRule(int nodes_per_piece, double kink, Eigen::VectorXd* points,
                     Eigen::VectorXd* weights) {
  constexpr double kLimit = 8;
  kink = std::clamp(kink, -kLimit, kLimit);
  Eigen::VectorXd unit_points, unit_weights;
  LegendreRule(nodes_per_piece, &unit_points, &unit_weights);
  points->resize(2 * nodes_per_piece);
  weights->resize(2 * nodes_per_piece);
  const double pieces[2][2] = {{-kLimit, kink}, {kink, kLimit}};
  for (int piece = 0; piece < 2; ++piece) {
    const double half = (pieces[piece][1] - pieces[piece][0]) / 2;
    const double middle = (pieces[piece][1] + pieces[piece][0]) / 2;
    for (int i = 0; i < nodes_per_piece; ++i) {
      const double z = middle + half * unit_points[i];
      (*points)[piece * nodes_per_piece + i] = z;
      (*weights)[piece * nodes_per_piece + i] =
          half * unit_weights[i] * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    }
  }
}

// Lower Cholesky factor of a covariance matrix, with jitter grown until it
// factors (pending points may coincide).
Eigen::MatrixXd CholeskyWithJitter(Eigen::MatrixXd covariance) {
  double jitter = 1e-10 * std::max(1.0, covariance.diagonal().maxCoeff());
  Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  while (llt.info() != Eigen::Success) {
    TP_CHECK(jitter < 1e3, "pending covariance not positive definite");
    covariance.diagonal().array() += jitter;
    jitter *= 10;
    llt.compute(covariance);
  }
  return llt.matrixL();
}

// log h(z), h(z) = z Phi(z) + phi(z) = EI / sigma at z = (mean - best) / sigma.
// For z <= -1, h(z) = phi(z) (1 - t R(t)) with t = -z and R(t) = Phi(-t) /
// phi(t) Mills' ratio, so log h = log phi(z) + log(1 - t R(t)): R from erfc
// scaled by exp(t^2 / 2) while erfc does not underflow, then the asymptotic
// series 1 - t R(t) = sum_k (-1)^(k+1) (2k-1)!! / t^(2k).
double LogH(double z) {
  const double log_phi = -0.5 * z * z - 0.5 * std::log(2 * M_PI);
  if (z > -1) {
    const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
    return std::log(z * cdf + std::exp(log_phi));
  }
  const double t = -z;
  double rest;
  if (t < 25) {
    const double mills =
        std::sqrt(M_PI / 2) * std::exp(0.5 * t * t) * std::erfc(t / std::sqrt(2.0));
    rest = 1 - t * mills;
  } else {
    // Terms shrink by (2k+1) / t^2 <= 1/30 each; 10 of them reach rounding.
    const double inverse_square = 1 / (t * t);
    double term = inverse_square;
    rest = 0;
    for (int k = 1; k <= 10; ++k) {
      rest += (k % 2 == 1 ? term : -term);
      term *= (2 * k + 1) * inverse_square;
    }
  }
  return log_phi + std::log(rest);
}

// log(sum_s exp(terms_s)).
double LogSumExp(const Eigen::VectorXd& terms) {
  const double top = terms.maxCoeff();
  if (!std::isfinite(top)) return top;
  return top + std::log((terms.array() - top).exp().sum());
}

}  // namespace

double LogExpectedImprovement(double mean, double variance, double best) {
  const double sigma = std::sqrt(variance);
  return std::log(sigma) + LogH((mean - best) / sigma);
}

double ExpectedImprovement(double mean, double variance, double best) {
  const double sigma = std::sqrt(variance);
  const double z = (mean - best) / sigma;
  const double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
  return std::max(sigma * (z * cdf + pdf), 0.0);
}

PendingExpectedImprovement::PendingExpectedImprovement(const GaussianProcess& gp, double best,
                                                       const std::vector<Eigen::VectorXd>& pending,
                                                       std::mt19937_64& rng)
    : gp_(gp), best_(best) {
  const int m = static_cast<int>(pending.size());
  if (m == 0) return;
  for (const Eigen::VectorXd& point : pending) pending_.push_back(gp_.PosteriorAt(point));
  Eigen::MatrixXd covariance(m, m);
  Eigen::VectorXd mean(m);
  for (int a = 0; a < m; ++a) {
    mean[a] = pending_[a].mean;
    for (int b = 0; b <= a; ++b) {
      covariance(a, b) = covariance(b, a) =
          a == b ? pending_[a].variance : gp_.Covariance(pending_[a], pending_[b]);
    }
  }
  cholesky_ = CholeskyWithJitter(covariance);
  if (m == 1) {
    // The incumbent max(best, f(p)) has its kink where f(p) = best.
    Eigen::VectorXd nodes;
    SplitNormalRule(kNodesPerPiece, (best_ - mean[0]) / cholesky_(0, 0), &nodes, &weights_);
    scenarios_ = nodes.transpose();
  } else {
    std::normal_distribution<double> normal(0.0, 1.0);
    scenarios_ =
        Eigen::MatrixXd::NullaryExpr(m, kMonteCarloScenarios, [&]() { return normal(rng); });
    weights_ = Eigen::VectorXd::Constant(kMonteCarloScenarios, 1.0 / kMonteCarloScenarios);
  }
  log_weights_ = weights_.array().log();
  const Eigen::MatrixXd values = (cholesky_ * scenarios_).colwise() + mean;
  incumbents_ = values.colwise().maxCoeff().transpose().cwiseMax(best_);
}

void PendingExpectedImprovement::Scenarios(const Eigen::VectorXd& point, Eigen::VectorXd* means,
                                           double* variance) const {
  const GaussianProcess::Posterior posterior = gp_.PosteriorAt(point);
  if (pending_.empty()) {
    *means = Eigen::VectorXd::Constant(1, posterior.mean);
    *variance = posterior.variance;
    return;
  }
  const int m = static_cast<int>(pending_.size());
  Eigen::VectorXd covariance(m);
  for (int j = 0; j < m; ++j) covariance[j] = gp_.Covariance(pending_[j], posterior);
  const Eigen::VectorXd l = cholesky_.triangularView<Eigen::Lower>().solve(covariance);
  *variance = std::max(posterior.variance - l.squaredNorm(), 1e-12);
  *means = (scenarios_.transpose() * l).array() + posterior.mean;
}

double PendingExpectedImprovement::Value(const Eigen::VectorXd& point) const {
  Eigen::VectorXd means;
  double variance;
  Scenarios(point, &means, &variance);
  if (pending_.empty()) return ExpectedImprovement(means[0], variance, best_);
  double value = 0;
  for (Eigen::Index s = 0; s < means.size(); ++s) {
    value += weights_[s] * ExpectedImprovement(means[s], variance, incumbents_[s]);
  }
  return value;
}

double PendingExpectedImprovement::LogValue(const Eigen::VectorXd& point) const {
  Eigen::VectorXd means;
  double variance;
  Scenarios(point, &means, &variance);
  if (pending_.empty()) return LogExpectedImprovement(means[0], variance, best_);
  // LogExpectedImprovement per scenario, with sigma and its log taken once.
  const double sigma = std::sqrt(variance);
  const double log_sigma = std::log(sigma);
  Eigen::VectorXd terms(means.size());
  for (Eigen::Index s = 0; s < means.size(); ++s) {
    terms[s] = log_weights_[s] + (log_sigma + LogH((means[s] - incumbents_[s]) / sigma));
  }
  return LogSumExp(terms);
}

}  // namespace trainpkg::sdk::hptune::internal
