#include "trainer_runtime/nn/cpu/optimizer_updates.h"

#include <cmath>

#include "trainer_runtime/nn/cpu/internal/vector_clones.h"

namespace trainpkg::nn::cpu {

// The loops vectorize (internal/vector_clones.h); every clone rounds as the
// scalar code does.

TRAINPKG_VECTOR_CLONES
void SgdUpdate(int64_t n, float learning_rate, float momentum, bool nesterov, float* value,
               const float* grad, float* velocity) {
  if (momentum == 0.0f) {
    for (int64_t i = 0; i < n; ++i) value[i] -= learning_rate * grad[i];
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    velocity[i] = momentum * velocity[i] + grad[i];
    const float direction = nesterov ? grad[i] + momentum * velocity[i] : velocity[i];
    value[i] -= learning_rate * direction;
  }
}

TRAINPKG_VECTOR_CLONES
void AdamUpdate(int64_t n, float learning_rate, float beta_1, float beta_2, float epsilon,
                int64_t step, float* value, const float* grad, float* m, float* v) {
  const double t = static_cast<double>(step);
  const float step_size = static_cast<float>(learning_rate / (1.0 - std::pow(beta_1, t)));
  const float inverse_sqrt_correction_2 =
      static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(beta_2, t)));
  const float one_minus_beta_1 = 1.0f - beta_1;
  const float one_minus_beta_2 = 1.0f - beta_2;
  for (int64_t i = 0; i < n; ++i) {
    const float g = grad[i];
    m[i] = beta_1 * m[i] + one_minus_beta_1 * g;
    v[i] = beta_2 * v[i] + one_minus_beta_2 * g * g;
    const float denominator = std::sqrt(v[i]) * inverse_sqrt_correction_2 + epsilon;
    value[i] -= step_size * m[i] / denominator;
  }
}

TRAINPKG_VECTOR_CLONES
void AdagradUpdate(int64_t n, float learning_rate, float epsilon, float* value, const float* grad,
                   float* sum) {
  for (int64_t i = 0; i < n; ++i) {
    sum[i] += grad[i] * grad[i];
    value[i] -= learning_rate * grad[i] / (std::sqrt(sum[i]) + epsilon);
  }
}

}  // namespace trainpkg::nn::cpu
