#include "tests/trainer_runtime/nn/gradient_check.h"

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/nn/rng.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::nn::testing {
namespace {

double Objective(Layer& layer, const Tensor& input, const Tensor& weights, Tensor& output,
                 const GradientCheckOptions& options) {
  if (options.before_forward) options.before_forward();
  layer.Forward(input, options.training, &output);
  double sum = 0.0;
  for (int64_t j = 0; j < output.num_elements(); ++j) {
    sum += static_cast<double>(output.data()[j]) * static_cast<double>(weights.data()[j]);
  }
  return sum;
}

void Compare(const std::string& what, int64_t index, double analytic, double numeric,
             const GradientCheckOptions& options) {
  const double tolerance =
      options.absolute_tolerance + options.relative_tolerance * std::abs(numeric);
  EXPECT_NEAR(analytic, numeric, tolerance) << what << " value " << index;
}

}  // namespace

Tensor RandomTensor(const Shape& shape, uint64_t seed, float low, float high) {
  Tensor t(shape);
  Rng rng(seed);
  for (float& v : t.values()) {
    const float magnitude = rng.Uniform(low, high);
    v = rng.Uniform01() < 0.5f ? -magnitude : magnitude;
  }
  return t;
}

Tensor DistinctTensor(const Shape& shape, uint64_t seed, float spacing) {
  Tensor t(shape);
  std::vector<int64_t> order(static_cast<size_t>(t.num_elements()));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Next() % i]);
  const float offset = spacing * static_cast<float>(order.size()) / 2.0f;
  for (size_t i = 0; i < order.size(); ++i) {
    t.data()[i] = static_cast<float>(order[i]) * spacing - offset;
  }
  return t;
}

void ExpectGradientsMatchFiniteDifferences(Layer& layer, const Tensor& input,
                                           const GradientCheckOptions& options) {
  auto shape = layer.OutputShape(input.shape());
  ASSERT_THAT(shape, IsOk());
  Tensor output(*shape);
  const Tensor weights = RandomTensor(*shape, 7, 0.1f, 1.0f);

  // Analytic gradients.
  Objective(layer, input, weights, output, options);
  Tensor input_grad(input.shape());
  layer.Backward(input, output, weights, &input_grad);
  std::vector<Tensor> param_grads;
  for (Parameter* p : layer.parameters()) param_grads.push_back(p->grad);

  const double two_steps = 2.0 * static_cast<double>(options.step);
  Tensor probe = input;
  for (int64_t i = 0; i < probe.num_elements(); ++i) {
    const float saved = probe.data()[i];
    probe.data()[i] = saved + options.step;
    const double plus = Objective(layer, probe, weights, output, options);
    probe.data()[i] = saved - options.step;
    const double minus = Objective(layer, probe, weights, output, options);
    probe.data()[i] = saved;
    Compare("input", i, input_grad.data()[i], (plus - minus) / two_steps, options);
  }
  std::vector<Parameter*> params = layer.parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    Tensor& value = params[k]->value;
    for (int64_t i = 0; i < value.num_elements(); ++i) {
      const float saved = value.data()[i];
      value.data()[i] = saved + options.step;
      const double plus = Objective(layer, input, weights, output, options);
      value.data()[i] = saved - options.step;
      const double minus = Objective(layer, input, weights, output, options);
      value.data()[i] = saved;
      Compare(params[k]->name, i, param_grads[k].data()[i], (plus - minus) / two_steps, options);
    }
  }
}

}  // namespace trainpkg::nn::testing
