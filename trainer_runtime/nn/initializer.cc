#include "trainer_runtime/nn/initializer.h"

#include <cmath>

#include "base/check.h"

namespace trainpkg::nn {

void Initialize(Initializer initializer, Rng& rng, Tensor& kernel) {
  if (initializer == Initializer::kZeros) {
    kernel.Fill(0.0f);
    return;
  }
  TP_CHECK(kernel.rank() >= 2, "fan-based initialiser on a {} tensor",
           ShapeToString(kernel.shape()));
  int64_t receptive = 1;
  for (int i = 0; i + 2 < kernel.rank(); ++i) receptive *= kernel.dim(i);
  const double fan_in = static_cast<double>(receptive * kernel.dim(kernel.rank() - 2));
  const double fan_out = static_cast<double>(receptive * kernel.dim(kernel.rank() - 1));
  const double denominator = initializer == Initializer::kGlorotUniform ? fan_in + fan_out : fan_in;
  const float limit = static_cast<float>(std::sqrt(6.0 / denominator));
  for (float& v : kernel.values()) v = rng.Uniform(-limit, limit);
}

}  // namespace trainpkg::nn
