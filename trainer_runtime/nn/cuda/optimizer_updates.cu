#include <cmath>

#include "trainer_runtime/nn/cuda/internal/launch.cuh"
#include "trainer_runtime/nn/cuda/optimizer_updates.h"

namespace trainpkg::nn::cuda {
namespace {

using internal::FirstIndex;
using internal::Stride;

__global__ void SgdKernel(int64_t n, float learning_rate, float momentum, bool nesterov,
                          float* value, const float* grad, float* velocity) {
  for (int64_t i = FirstIndex(); i < n; i += Stride()) {
    if (momentum == 0.0f) {
      value[i] -= learning_rate * grad[i];
      continue;
    }
    velocity[i] = momentum * velocity[i] + grad[i];
    const float direction = nesterov ? grad[i] + momentum * velocity[i] : velocity[i];
    value[i] -= learning_rate * direction;
  }
}

__global__ void AdamKernel(int64_t n, float step_size, float inverse_sqrt_correction_2,
                           float beta_1, float beta_2, float epsilon, float* value,
                           const float* grad, float* m, float* v) {
  const float one_minus_beta_1 = 1.0f - beta_1;
  const float one_minus_beta_2 = 1.0f - beta_2;
  for (int64_t i = FirstIndex(); i < n; i += Stride()) {
    const float g = grad[i];
    m[i] = beta_1 * m[i] + one_minus_beta_1 * g;
    v[i] = beta_2 * v[i] + one_minus_beta_2 * g * g;
    const float denominator = sqrtf(v[i]) * inverse_sqrt_correction_2 + epsilon;
    value[i] -= step_size * m[i] / denominator;
  }
}

__global__ void AdagradKernel(int64_t n, float learning_rate, float epsilon, float* value,
                              const float* grad, float* sum) {
  for (int64_t i = FirstIndex(); i < n; i += Stride()) {
    sum[i] += grad[i] * grad[i];
    value[i] -= learning_rate * grad[i] / (sqrtf(sum[i]) + epsilon);
  }
}

}  // namespace

void SgdUpdate(int64_t n, float learning_rate, float momentum, bool nesterov, float* value,
               const float* grad, float* velocity) {
  if (n == 0) return;
  SgdKernel<<<internal::Blocks(n), internal::kThreads>>>(n, learning_rate, momentum, nesterov,
                                                         value, grad, velocity);
  internal::CheckLaunch("SgdUpdate");
}

void AdamUpdate(int64_t n, float learning_rate, float beta_1, float beta_2, float epsilon,
                int64_t step, float* value, const float* grad, float* m, float* v) {
  if (n == 0) return;
  // The step's bias corrections on the host in double, as the CPU kernel.
  const double t = static_cast<double>(step);
  const float step_size = static_cast<float>(learning_rate / (1.0 - std::pow(beta_1, t)));
  const float inverse_sqrt_correction_2 =
      static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(beta_2, t)));
  AdamKernel<<<internal::Blocks(n), internal::kThreads>>>(
      n, step_size, inverse_sqrt_correction_2, beta_1, beta_2, epsilon, value, grad, m, v);
  internal::CheckLaunch("AdamUpdate");
}

void AdagradUpdate(int64_t n, float learning_rate, float epsilon, float* value, const float* grad,
                   float* sum) {
  if (n == 0) return;
  AdagradKernel<<<internal::Blocks(n), internal::kThreads>>>(n, learning_rate, epsilon, value, grad,
                                                             sum);
  internal::CheckLaunch("AdagradUpdate");
}

}  // namespace trainpkg::nn::cuda
