// A Gaussian-process regression model for the Bayesian suggester: zero mean
// (targets are standardised by the caller), Matérn 5/2 kernel with one
// length scale per feature (ARD) and a signal variance, plus Gaussian noise.
//
// Fit() chooses the hyperparameters by maximising the log marginal
// likelihood plus weak log priors (length scales Gamma(3, 6), signal variance
// Gamma(2, 0.15): the priors BoTorch used as defaults for inputs in the unit
// cube and standardised outputs), in log space within bounds, with NLopt's
// L-BFGS from a fixed start and a few random restarts. Linear algebra is
// Eigen's Cholesky (LLT).
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_H_

#include <random>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"

namespace trainpkg::sdk::hptune::internal {

struct GpHyperparameters {
  Eigen::VectorXd length_scales;
  double signal_variance = 1;
  double noise_variance = 1e-3;
};

// Matérn 5/2: s2 (1 + √5 r + 5/3 r²) exp(-√5 r), r the length-scaled distance.
double Matern52(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const GpHyperparameters& h);

class GaussianProcess {
 public:
  // Number of random restarts of the hyperparameter fit besides the fixed start.
  static constexpr int kRandomRestarts = 2;

  // Fits hyperparameters to rows of `x` (n x F, features in [0,1]) and
  // targets `y` (n), then conditions on them. REQUIRES: n >= 1.
  static GaussianProcess Fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                             std::mt19937_64& rng);
  // `count` GPs on (x, y) whose hyperparameters are draws from their
  // posterior (the log marginal likelihood plus the priors above, within the
  // bounds), for integrating an acquisition over the hyperparameters rather
  // than trusting one fit (Snoek, Larochelle and Adams 2012): a slice-sampling
  // chain (Neal 2003, one coordinate at a time in log space) starts at Fit's
  // maximum, runs kBurnInSweeps sweeps, then keeps one state every
  // kThinningSweeps. REQUIRES: n >= 1, count >= 1.
  static constexpr int kBurnInSweeps = 10;
  static constexpr int kThinningSweeps = 2;
  static std::vector<GaussianProcess> SamplePosterior(const Eigen::MatrixXd& x,
                                                      const Eigen::VectorXd& y, int count,
                                                      std::mt19937_64& rng);
  // Conditions on (x, y) with the given hyperparameters.
  GaussianProcess(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, GpHyperparameters h);

  const GpHyperparameters& hyperparameters() const { return h_; }

  // Posterior mean and variance of the latent function (noise excluded).
  void Predict(const Eigen::VectorXd& point, double* mean, double* variance) const;

  // The posterior at one point, with what Covariance needs to relate it to
  // other points: L^-1 k(X, point), L the Cholesky factor of the kernel matrix.
  struct Posterior {
    Eigen::VectorXd point;
    double mean = 0;
    double variance = 0;  // at least 1e-12
    Eigen::VectorXd whitened;
  };
  Posterior PosteriorAt(const Eigen::VectorXd& point) const;
  // Posterior covariance of the latent function at two points (noise excluded).
  double Covariance(const Posterior& a, const Posterior& b) const;

 private:
  Eigen::MatrixXd x_;
  GpHyperparameters h_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;  // K^-1 y
};

// Log marginal likelihood plus log priors at log-hyperparameters `theta`
// ([log l_1..l_F, log s2, log noise]) and its gradient; -infinity when the
// kernel matrix is not positive definite. Exposed for tests.
double LogPosterior(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                    const Eigen::VectorXd& theta, Eigen::VectorXd* gradient);

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_GAUSSIAN_PROCESS_H_
