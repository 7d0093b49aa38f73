// Optimizer update rules on the GPU (PyTorch's formulas).
// The CUDA twins of nn/cpu/optimizer_updates.h: the same arguments and results, with
// device pointers, run on the current device's default stream (host results
// wait for the kernels). A launch failure aborts naming the kernel.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_OPTIMIZER_UPDATES_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_OPTIMIZER_UPDATES_H_

#include <cstdint>

namespace trainpkg::nn::cuda {

void SgdUpdate(int64_t n, float learning_rate, float momentum, bool nesterov, float* value,
               const float* grad, float* velocity);
void AdamUpdate(int64_t n, float learning_rate, float beta_1, float beta_2, float epsilon,
                int64_t step, float* value, const float* grad, float* m, float* v);
void AdagradUpdate(int64_t n, float learning_rate, float epsilon, float* value, const float* grad,
                   float* sum);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_OPTIMIZER_UPDATES_H_
