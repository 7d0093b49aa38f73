// The acquisition function of the Bayesian suggester: expected improvement
// of one more point while other points are pending (running trials, and the
// points already picked in the same Suggest call):
//
//   EI_P(x) = E[max(f(x) - max(best, max_j f(p_j)), 0)]
//
// under the Gaussian process's joint posterior of f at x and at the pending
// points P. It is what adding x gains in q-point expected improvement,
// qEI(P ∪ {x}) - qEI(P) (Ginsbourger, Le Riche and Carraro 2010), so picking
// x by it is the sequential greedy qEI that BoTorch applies to pending
// points. Unlike a constant liar, no fictitious objective enters the model:
// a pending point's outcome stays uncertain, and a point next to it gains
// little because its value is strongly correlated with the pending one.
//
// The expectation over f(P) is a weighted sum over scenarios f(P) = mu_P + L z
// (L the Cholesky factor of the posterior covariance of f(P)): for one
// pending point Gauss–Legendre nodes on either side of the incumbent's kink
// (f(p) = best) over [-8, 8], for more a Monte-Carlo sample. In a scenario
// f(x) is Gaussian with mean mu_x + l·z and variance s_x^2 - l·l,
// l = L^-1 Cov(f(P), f(x)), so the inner expectation is the closed-form EI
// against that scenario's incumbent: the value is smooth in x and, for a
// given random engine, deterministic. With nothing pending it is plain EI.
//
// The suggester maximises LogValue, the logarithm computed without forming
// EI (LogEI, Ament et al. 2023, "Unexpected Improvements to Expected
// Improvement"): far from the incumbent EI's closed form cancels to 0 or
// rounding noise, while log EI stays finite, smooth and ordered, so the
// candidates there are still ranked and the local optimiser still has a
// slope to follow.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_PENDING_EXPECTED_IMPROVEMENT_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_PENDING_EXPECTED_IMPROVEMENT_H_

#include <random>
#include <vector>

#include "Eigen/Core"
#include "sdk/hptune/internal/gaussian_process.h"

namespace trainpkg::sdk::hptune::internal {

// E[max(Y - best, 0)] for Y ~ N(mean, variance). REQUIRES: variance > 0.
double ExpectedImprovement(double mean, double variance, double best);
// log E[max(Y - best, 0)], accurate where the EI itself underflows (finite
// for any finite mean and best). REQUIRES: variance > 0.
double LogExpectedImprovement(double mean, double variance, double best);

class PendingExpectedImprovement {
 public:
  static constexpr int kNodesPerPiece = 16;
  static constexpr int kMonteCarloScenarios = 128;

  // `best` is the best objective observed (higher is better, in the GP's
  // units); `pending` the encoded pending points. `rng` draws the Monte-Carlo
  // scenarios (two or more pending points). `gp` must outlive this object.
  PendingExpectedImprovement(const GaussianProcess& gp, double best,
                             const std::vector<Eigen::VectorXd>& pending, std::mt19937_64& rng);

  double Value(const Eigen::VectorXd& point) const;
  // log Value(point), without underflow: a log-sum-exp over the scenarios of
  // LogExpectedImprovement.
  double LogValue(const Eigen::VectorXd& point) const;

 private:
  // The scenarios' means of f(point) and its variance given f(P) (one
  // scenario, the posterior, when nothing is pending).
  void Scenarios(const Eigen::VectorXd& point, Eigen::VectorXd* means, double* variance) const;

  const GaussianProcess& gp_;
  const double best_;
  std::vector<GaussianProcess::Posterior> pending_;
  Eigen::MatrixXd cholesky_;     // m x m, lower triangular
  Eigen::MatrixXd scenarios_;    // m x S standard normal z
  Eigen::VectorXd weights_;      // S, summing to 1
  Eigen::VectorXd log_weights_;  // S
  Eigen::VectorXd incumbents_;   // S: max(best, max_j f(p_j)) in each scenario
};

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_PENDING_EXPECTED_IMPROVEMENT_H_
