#include "sdk/hptune/internal/power_transform.h"

#include <cmath>
#include <limits>

namespace trainpkg::sdk::hptune::internal {
namespace {

// Symmetric around 1 (the identity): psi(-z; l) = -psi(z; 2 - l), so
// maximising an objective and minimising its negation warp alike. At the
// ends one tail is compressed logarithmically and the other stretched
// quadratically; wider ranges let a few trials dominate the fit.
constexpr double kMinLambda = 0, kMaxLambda = 2;
constexpr int kGridPoints = 41;
constexpr int kGoldenSteps = 30;

Eigen::VectorXd Standardize(const Eigen::VectorXd& values) {
  const double mean = values.mean();
  double sd = std::sqrt((values.array() - mean).square().sum() / values.size());
  if (!(sd > 1e-12)) sd = 1;
  return (values.array() - mean) / sd;
}

double LogLikelihood(const Eigen::VectorXd& z, double lambda) {
  const Eigen::VectorXd psi = z.unaryExpr([&](double v) { return YeoJohnson(v, lambda); });
  const double mean = psi.mean();
  const double variance = (psi.array() - mean).square().sum() / z.size();
  if (!(variance > 0) || !std::isfinite(variance)) return -std::numeric_limits<double>::infinity();
  double jacobian = 0;
  for (double v : z) jacobian += std::copysign(std::log1p(std::fabs(v)), v);
  return -0.5 * static_cast<double>(z.size()) * std::log(variance) + (lambda - 1) * jacobian;
}

}  // namespace

double YeoJohnson(double z, double lambda) {
  // expm1(l log1p(z)) / l is (z + 1)^l - 1 over l without cancellation near l = 0.
  if (z >= 0) {
    const double log = std::log1p(z);
    return lambda == 0 ? log : std::expm1(lambda * log) / lambda;
  }
  const double log = std::log1p(-z);
  return lambda == 2 ? -log : -std::expm1((2 - lambda) * log) / (2 - lambda);
}

double FitYeoJohnson(const Eigen::VectorXd& standardized) {
  // A grid for the basin, then golden-section search around its best point.
  const double step = (kMaxLambda - kMinLambda) / (kGridPoints - 1);
  double best_lambda = 1, best_value = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < kGridPoints; ++i) {
    const double lambda = kMinLambda + i * step;
    const double value = LogLikelihood(standardized, lambda);
    if (value > best_value) {
      best_value = value;
      best_lambda = lambda;
    }
  }
  double low = std::max(kMinLambda, best_lambda - step);
  double high = std::min(kMaxLambda, best_lambda + step);
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < kGoldenSteps; ++i) {
    const double a = high - ratio * (high - low), b = low + ratio * (high - low);
    if (LogLikelihood(standardized, a) >= LogLikelihood(standardized, b)) {
      high = b;
    } else {
      low = a;
    }
  }
  const double lambda = (low + high) / 2;
  return LogLikelihood(standardized, lambda) >= best_value ? lambda : best_lambda;
}

Eigen::VectorXd WarpOutputs(const Eigen::VectorXd& values) {
  const Eigen::VectorXd z = Standardize(values);
  const double lambda = FitYeoJohnson(z);
  return Standardize(z.unaryExpr([&](double v) { return YeoJohnson(v, lambda); }));
}

}  // namespace trainpkg::sdk::hptune::internal
