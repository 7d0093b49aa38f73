#include "bench/hptune/test_functions.h"

#include <cmath>

namespace trainpkg::bench {
namespace {

double BraninValue(const std::vector<double>& x) {
  const double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
  const double term = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return term * term + 10 * (1 - t) * std::cos(x[0]) + 10;
}

double Hartmann6Value(const std::vector<double>& x) {
  static constexpr double kAlpha[4] = {1.0, 1.2, 3.0, 3.2};
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double kP[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                      {2329, 4135, 8307, 3736, 1004, 9991},
                                      {2348, 1451, 3522, 2883, 3047, 6650},
                                      {4047, 8828, 8732, 5743, 1091, 381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) {
      const double d = x[j] - kP[i][j] * 1e-4;
      inner += kA[i][j] * d * d;
    }
    sum += kAlpha[i] * std::exp(-inner);
  }
  return -sum;
}

}  // namespace

double ConditionalValue(bool hartmann6, const std::vector<double>& children) {
  return hartmann6 ? Hartmann6Value(children)
                   : -3 + (BraninValue(children) - 0.397887357729738) / 10;
}

const TestFunction& Conditional() {
  static const TestFunction kConditional{"conditional",
                                         std::vector<double>(6, 0.0),
                                         std::vector<double>(6, 1.0),
                                         -3.32236801141551,
                                         Hartmann6Value,
                                         true};
  return kConditional;
}

const TestFunction& Branin() {
  static const TestFunction kBranin{"branin", {-5, 0}, {10, 15}, 0.397887357729738, BraninValue};
  return kBranin;
}

const TestFunction& Hartmann6() {
  static const TestFunction kHartmann6{"hartmann6", std::vector<double>(6, 0.0),
                                       std::vector<double>(6, 1.0), -3.32236801141551,
                                       Hartmann6Value};
  return kHartmann6;
}

}  // namespace trainpkg::bench
