// Checks a layer's Backward against central finite differences.
//
// The scalar checked is L = sum_j output_j * r_j for a fixed random r, so
// dL/d(output) = r is what Backward receives. Every input value and every
// parameter value x is perturbed by +-step in float and
//   numeric = (L(x + step) - L(x - step)) / (2 step),
// with L summed in double. The layers here are piecewise linear in each single
// value (Dense, Conv2D, pooling, ReLU away from 0, dropout with a fixed mask),
// so as long as no kink lies within +-step the central difference has no
// truncation error and only float rounding of the outputs the perturbed value
// touches remains: a few ulps of |output| <~ 10 over 2 * step = 0.02, about
// 1e-4. The tolerance |analytic - numeric| <= 1e-3 + 1e-2 |numeric| leaves a
// margin of ten while still catching any wrong index or missing term (those
// are off by O(|r|) ~ 0.1..1).
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_NN_GRADIENT_CHECK_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_NN_GRADIENT_CHECK_H_

#include <cstdint>
#include <functional>

#include "trainer_runtime/nn/layer.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn::testing {

struct GradientCheckOptions {
  float step = 1e-2f;
  double absolute_tolerance = 1e-3;
  double relative_tolerance = 1e-2;
  bool training = true;
  // Called before every Forward (e.g. to replay a dropout mask).
  std::function<void()> before_forward = nullptr;
};

// Adds a gtest failure for every input or parameter value whose gradient
// differs from the central difference beyond the tolerance.
void ExpectGradientsMatchFiniteDifferences(Layer& layer, const Tensor& input,
                                           const GradientCheckOptions& options = {});

// A CPU tensor of `shape` with values uniform in +-[low, high] (random sign),
// from a fixed seed.
Tensor RandomTensor(const Shape& shape, uint64_t seed, float low = 0.1f, float high = 1.0f);

// A CPU tensor of `shape` holding a seeded permutation of k * spacing (k = 0,
// 1, ...) minus an offset, so every two values differ by >= spacing.
Tensor DistinctTensor(const Shape& shape, uint64_t seed, float spacing = 0.05f);

}  // namespace trainpkg::nn::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_NN_GRADIENT_CHECK_H_
