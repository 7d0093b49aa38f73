// Optimizer update rules on one parameter's contiguous CPU buffers (PyTorch's
// formulas, see sgd.h, adam.h, adagrad.h). The CUDA twins take the same
// arguments with device pointers.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_OPTIMIZER_UPDATES_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_OPTIMIZER_UPDATES_H_

#include <cstdint>

namespace trainpkg::nn::cpu {

// momentum == 0: w -= lr g. Otherwise b = momentum b + g, then
// w -= lr (g + momentum b) with nesterov, w -= lr b without.
void SgdUpdate(int64_t n, float learning_rate, float momentum, bool nesterov, float* value,
               const float* grad, float* velocity);

// m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// w -= (lr / (1 - b1^step)) m / (sqrt(v) / sqrt(1 - b2^step) + epsilon).
// REQUIRES: step >= 1.
void AdamUpdate(int64_t n, float learning_rate, float beta_1, float beta_2, float epsilon,
                int64_t step, float* value, const float* grad, float* m, float* v);

// sum += g^2; w -= lr g / (sqrt(sum) + epsilon).
void AdagradUpdate(int64_t n, float learning_rate, float epsilon, float* value, const float* grad,
                   float* sum);

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_OPTIMIZER_UPDATES_H_
