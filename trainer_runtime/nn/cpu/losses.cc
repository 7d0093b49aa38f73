#include "trainer_runtime/nn/cpu/losses.h"

#include <algorithm>
#include <cmath>

namespace trainpkg::nn::cpu {

double SparseSoftmaxCrossEntropy(int64_t rows, int64_t classes, const float* logits,
                                 const int32_t* labels, float scale, float* grad) {
  double total = 0.0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = logits + r * classes;
    const float max = *std::max_element(x, x + classes);
    double sum = 0.0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(x[c] - max));
    const double log_sum = std::log(sum);
    total += log_sum - static_cast<double>(x[labels[r]] - max);
    if (grad != nullptr) {
      float* g = grad + r * classes;
      const double inverse_sum = 1.0 / sum;
      for (int64_t c = 0; c < classes; ++c) {
        g[c] = static_cast<float>(std::exp(static_cast<double>(x[c] - max)) * inverse_sum) * scale;
      }
      g[labels[r]] -= scale;
    }
  }
  return total;
}

double BinaryCrossEntropyFromLogits(int64_t n, const float* logits, const float* targets,
                                    float scale, float* grad) {
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = logits[i];
    const double z = targets[i];
    total += std::max(x, 0.0) - x * z + std::log1p(std::exp(-std::abs(x)));
    if (grad != nullptr) {
      const double sigmoid =
          x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
      grad[i] = static_cast<float>((sigmoid - z) * scale);
    }
  }
  return total;
}

}  // namespace trainpkg::nn::cpu
