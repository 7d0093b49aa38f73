// Element-wise and row/column kernels on the GPU.
// The CUDA twins of nn/cpu/elementwise.h: the same arguments and results, with
// device pointers, run on the current device's default stream (host results
// wait for the kernels). A launch failure aborts naming the kernel.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_ELEMENTWISE_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_ELEMENTWISE_H_

#include <cstdint>

namespace trainpkg::nn::cuda {

void AddRowVector(int64_t rows, int64_t cols, const float* row, float* out);
void SumRows(int64_t rows, int64_t cols, const float* in, float* out);
void ReluForward(int64_t n, const float* x, float* y);
void ReluBackward(int64_t n, const float* y, const float* dy, float* dx);
void Multiply(int64_t n, const float* a, const float* b, float* out);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_ELEMENTWISE_H_
