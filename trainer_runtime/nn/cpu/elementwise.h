// Element-wise and row/column kernels on contiguous CPU buffers. The CUDA
// twins (nn/cuda/) take the same arguments with device pointers.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_ELEMENTWISE_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_ELEMENTWISE_H_

#include <cstdint>

namespace trainpkg::nn::cpu {

// out[r, c] += row[c] for a rows x cols matrix.
void AddRowVector(int64_t rows, int64_t cols, const float* row, float* out);
// out[c] = sum over r of in[r, c] for a rows x cols matrix.
void SumRows(int64_t rows, int64_t cols, const float* in, float* out);
// y = max(x, 0).
void ReluForward(int64_t n, const float* x, float* y);
// dx = dy where y > 0, else 0 (the subgradient at 0 is 0, as in TF and PyTorch).
void ReluBackward(int64_t n, const float* y, const float* dy, float* dx);
// out = a * b. out may alias a or b.
void Multiply(int64_t n, const float* a, const float* b, float* out);

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_ELEMENTWISE_H_
