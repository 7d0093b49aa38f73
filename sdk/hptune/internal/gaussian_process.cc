#include "sdk/hptune/internal/gaussian_process.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "base/check.h"
#include "nlopt.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

constexpr double kSqrt5 = 2.23606797749979;
// On the diagonal beside the noise: the Cholesky still succeeds when two
// trials sit at the same point and the fitted noise is tiny.
constexpr double kJitter = 1e-8;
constexpr int kMaxEvaluations = 200;
// Slice sampling of the hyperparameters: initial interval width in log space
// and at most this many steps out on each side.
constexpr double kSliceWidth = 1;
constexpr int kSliceSteps = 10;
// Bounds of the log-hyperparameters (inputs in [0,1], standardised targets).
constexpr double kMinLengthScale = 0.01, kMaxLengthScale = 20;
constexpr double kMinSignal = 0.01, kMaxSignal = 100;
constexpr double kMinNoise = 1e-6, kMaxNoise = 1;
// Gamma(shape, rate) priors, as log densities in log space (Jacobian included):
// shape * theta - rate * exp(theta).
constexpr double kLengthShape = 3, kLengthRate = 6;
constexpr double kSignalShape = 2, kSignalRate = 0.15;

GpHyperparameters FromTheta(const Eigen::VectorXd& theta) {
  const Eigen::Index f = theta.size() - 2;
  GpHyperparameters h;
  h.length_scales = theta.head(f).array().exp();
  h.signal_variance = std::exp(theta[f]);
  h.noise_variance = std::exp(theta[f + 1]);
  return h;
}

// Matérn 5/2 of a length-scaled distance r.
double Matern52OfDistance(double r, double signal_variance) {
  return signal_variance * (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) * std::exp(-kSqrt5 * r);
}

// The length-scaled distance between rows a of x and b of y.
double ScaledDistance(const Eigen::MatrixXd& x, Eigen::Index a, const Eigen::MatrixXd& y,
                      Eigen::Index b, const Eigen::VectorXd& length_scales) {
  double sum = 0;
  for (Eigen::Index i = 0; i < x.cols(); ++i) {
    const double d = (x(a, i) - y(b, i)) / length_scales[i];
    sum += d * d;
  }
  return std::sqrt(sum);
}

Eigen::MatrixXd KernelMatrix(const Eigen::MatrixXd& x, const GpHyperparameters& h) {
  const Eigen::Index n = x.rows();
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b <= a; ++b) {
      k(a, b) = k(b, a) =
          Matern52OfDistance(ScaledDistance(x, a, x, b, h.length_scales), h.signal_variance);
    }
  }
  k.diagonal().array() += h.noise_variance + kJitter;
  return k;
}

struct FitData {
  const Eigen::MatrixXd* x;
  const Eigen::VectorXd* y;
};

double NloptObjective(unsigned n, const double* theta, double* gradient, void* data) {
  const auto* fit = static_cast<const FitData*>(data);
  Eigen::Map<const Eigen::VectorXd> theta_vector(theta, n);
  Eigen::VectorXd grad;
  double value = LogPosterior(*fit->x, *fit->y, theta_vector, gradient ? &grad : nullptr);
  if (!std::isfinite(value)) {
    if (gradient != nullptr) std::fill(gradient, gradient + n, 0.0);
    // A failed Cholesky is a very bad point to the optimiser, not a NaN that
    // would end its search.
    return -1e300;
  }
  if (gradient != nullptr) Eigen::Map<Eigen::VectorXd>(gradient, n) = grad;
  return value;
}

}  // namespace

double Matern52(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const GpHyperparameters& h) {
  const double r = ((a - b).array() / h.length_scales.array()).matrix().norm();
  return Matern52OfDistance(r, h.signal_variance);
}

double LogPosterior(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                    const Eigen::VectorXd& theta, Eigen::VectorXd* gradient) {
  const Eigen::Index n = x.rows();
  const Eigen::Index f = x.cols();
  const GpHyperparameters h = FromTheta(theta);
  const Eigen::MatrixXd k = KernelMatrix(x, h);
  Eigen::LLT<Eigen::MatrixXd> llt(k);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Eigen::VectorXd alpha = llt.solve(y);
  const Eigen::MatrixXd l = llt.matrixL();
  double value = -0.5 * y.dot(alpha) - l.diagonal().array().log().sum() -
                 0.5 * static_cast<double>(n) * std::log(2 * M_PI);
  for (Eigen::Index i = 0; i < f; ++i) {
    value += kLengthShape * theta[i] - kLengthRate * std::exp(theta[i]);
  }
  value += kSignalShape * theta[f] - kSignalRate * std::exp(theta[f]);
  if (gradient == nullptr) return value;

  // d/dtheta_j = 0.5 tr((alpha alpha^T - K^-1) dK/dtheta_j).
  const Eigen::MatrixXd w = alpha * alpha.transpose() - llt.solve(Eigen::MatrixXd::Identity(n, n));
  // W and dK are symmetric: the pairs a > b count twice, the diagonal (r = 0)
  // only in dK/dlog s2.
  gradient->setZero(f + 2);
  Eigen::VectorXd squared(f);
  for (Eigen::Index a = 0; a < n; ++a) {
    (*gradient)[f] += 0.5 * w(a, a) * h.signal_variance;
    for (Eigen::Index b = 0; b < a; ++b) {
      for (Eigen::Index i = 0; i < f; ++i) {
        const double d = (x(a, i) - x(b, i)) / h.length_scales[i];
        squared[i] = d * d;
      }
      const double r = std::sqrt(squared.sum());
      const double e = std::exp(-kSqrt5 * r);
      // dk/dlog l_i = s2 (5/3)(1 + √5 r) e^{-√5 r} (Δ_i / l_i)^2.
      const double base = h.signal_variance * (5.0 / 3.0) * (1 + kSqrt5 * r) * e;
      gradient->head(f) += (w(a, b) * base) * squared;
      // dk/dlog s2 = k (without noise).
      (*gradient)[f] += w(a, b) * h.signal_variance * (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) * e;
    }
  }
  (*gradient)[f + 1] = 0.5 * w.trace() * h.noise_variance;
  for (Eigen::Index i = 0; i < f; ++i) {
    (*gradient)[i] += kLengthShape - kLengthRate * std::exp(theta[i]);
  }
  (*gradient)[f] += kSignalShape - kSignalRate * std::exp(theta[f]);
  return value;
}

namespace {

// Lower and upper bounds of theta for F features.
void ThetaBounds(unsigned f, std::vector<double>* lower, std::vector<double>* upper) {
  lower->assign(f + 2, std::log(kMinLengthScale));
  upper->assign(f + 2, std::log(kMaxLengthScale));
  (*lower)[f] = std::log(kMinSignal);
  (*upper)[f] = std::log(kMaxSignal);
  (*lower)[f + 1] = std::log(kMinNoise);
  (*upper)[f + 1] = std::log(kMaxNoise);
}

// The maximum a posteriori theta (see GaussianProcess::Fit).
Eigen::VectorXd FitTheta(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, std::mt19937_64& rng) {
  TP_CHECK(x.rows() >= 1 && x.rows() == y.size(), "{} rows, {} targets", x.rows(), y.size());
  const unsigned f = static_cast<unsigned>(x.cols());
  const unsigned n = f + 2;
  std::vector<double> lower, upper;
  ThetaBounds(f, &lower, &upper);

  FitData data{&x, &y};
  nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, n);
  TP_CHECK(opt != nullptr, "nlopt_create failed");
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_max_objective(opt, NloptObjective, &data);
  nlopt_set_maxeval(opt, kMaxEvaluations);
  nlopt_set_ftol_rel(opt, 1e-7);

  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> best_theta;
  double best_value = -std::numeric_limits<double>::infinity();
  // Restarts: the marginal likelihood has several local maxima; the first
  // start is a fixed, middling guess.
  for (int start = 0; start <= GaussianProcess::kRandomRestarts; ++start) {
    std::vector<double> theta(n);
    for (unsigned i = 0; i < f; ++i) {
      theta[i] = start == 0 ? std::log(0.5) : std::log(0.05) + uniform(rng) * std::log(40.0);
    }
    theta[f] = start == 0 ? 0.0 : std::log(0.3) + uniform(rng) * std::log(10.0);
    theta[f + 1] = start == 0 ? std::log(1e-3) : std::log(1e-5) + uniform(rng) * std::log(1e3);
    double value = -std::numeric_limits<double>::infinity();
    // Failure codes (roundoff, ...) still leave the best point found in theta.
    nlopt_optimize(opt, theta.data(), &value);
    if (std::isfinite(value) && value > best_value) {
      best_value = value;
      best_theta = theta;
    }
  }
  nlopt_destroy(opt);
  Eigen::VectorXd theta(n);
  // Every start failed: the noisiest GP, whose suggestions stay cautious
  // instead of trusting a fit that never converged.
  if (best_theta.empty()) {
    theta.head(f).setConstant(std::log(0.5));
    theta[f] = 0;
    theta[f + 1] = std::log(kMaxNoise);
  } else {
    theta = Eigen::Map<const Eigen::VectorXd>(best_theta.data(), n);
  }
  return theta;
}

}  // namespace

GaussianProcess GaussianProcess::Fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                     std::mt19937_64& rng) {
  return GaussianProcess(x, y, FromTheta(FitTheta(x, y, rng)));
}

std::vector<GaussianProcess> GaussianProcess::SamplePosterior(const Eigen::MatrixXd& x,
                                                              const Eigen::VectorXd& y, int count,
                                                              std::mt19937_64& rng) {
  TP_CHECK(count >= 1, "count is {}", count);
  const unsigned f = static_cast<unsigned>(x.cols());
  std::vector<double> lower, upper;
  ThetaBounds(f, &lower, &upper);
  Eigen::VectorXd theta = FitTheta(x, y, rng);
  auto log_density = [&](const Eigen::VectorXd& t) {
    const double value = LogPosterior(x, y, t, nullptr);
    return std::isfinite(value) ? value : -std::numeric_limits<double>::infinity();
  };
  double current = log_density(theta);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::exponential_distribution<double> exponential(1.0);
  // One sweep: a univariate slice-sampling update (Neal 2003: stepping out
  // then shrinking, the interval clipped to the bounds) of each coordinate.
  auto sweep = [&]() {
    for (unsigned i = 0; i < f + 2; ++i) {
      const double level = current - exponential(rng);
      const double start = theta[i];
      double left = start - kSliceWidth * uniform(rng);
      double right = left + kSliceWidth;
      auto density_at = [&](double v) {
        theta[i] = v;
        return log_density(theta);
      };
      for (int step = 0; step < kSliceSteps && left > lower[i] && density_at(left) > level;
           ++step) {
        left -= kSliceWidth;
      }
      for (int step = 0; step < kSliceSteps && right < upper[i] && density_at(right) > level;
           ++step) {
        right += kSliceWidth;
      }
      left = std::max(left, lower[i]);
      right = std::min(right, upper[i]);
      for (;;) {
        const double proposal = left + uniform(rng) * (right - left);
        const double value = density_at(proposal);
        if (value > level) {
          current = value;
          break;
        }
        if (proposal < start) {
          left = proposal;
        } else {
          right = proposal;
        }
        if (right - left < 1e-10) {  // only the start is left (density flat to rounding)
          theta[i] = start;
          break;
        }
      }
    }
  };
  for (int i = 0; i < kBurnInSweeps; ++i) sweep();
  std::vector<GaussianProcess> samples;
  for (int k = 0; k < count; ++k) {
    for (int i = 0; i < kThinningSweeps; ++i) sweep();
    samples.push_back(GaussianProcess(x, y, FromTheta(theta)));
  }
  return samples;
}

GaussianProcess::GaussianProcess(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                 GpHyperparameters h)
    : x_(x), h_(std::move(h)) {
  // Grow the jitter until the factorisation succeeds (duplicate rows with
  // tiny noise can make K numerically singular).
  Eigen::MatrixXd k = KernelMatrix(x_, h_);
  double extra = 1e-8;
  llt_.compute(k);
  while (llt_.info() != Eigen::Success) {
    TP_CHECK(extra < 1e3, "kernel matrix not positive definite");
    k.diagonal().array() += extra;
    extra *= 10;
    llt_.compute(k);
  }
  alpha_ = llt_.solve(y);
}

GaussianProcess::Posterior GaussianProcess::PosteriorAt(const Eigen::VectorXd& point) const {
  const Eigen::MatrixXd row = point.transpose();
  Eigen::VectorXd k_star(x_.rows());
  for (Eigen::Index i = 0; i < x_.rows(); ++i) {
    k_star[i] =
        Matern52OfDistance(ScaledDistance(x_, i, row, 0, h_.length_scales), h_.signal_variance);
  }
  Posterior posterior;
  posterior.point = point;
  posterior.mean = k_star.dot(alpha_);
  posterior.whitened = llt_.matrixL().solve(k_star);
  posterior.variance = std::max(h_.signal_variance - posterior.whitened.squaredNorm(), 1e-12);
  return posterior;
}

double GaussianProcess::Covariance(const Posterior& a, const Posterior& b) const {
  return Matern52(a.point, b.point, h_) - a.whitened.dot(b.whitened);
}

void GaussianProcess::Predict(const Eigen::VectorXd& point, double* mean, double* variance) const {
  const Posterior posterior = PosteriorAt(point);
  *mean = posterior.mean;
  *variance = posterior.variance;
}

}  // namespace trainpkg::sdk::hptune::internal
