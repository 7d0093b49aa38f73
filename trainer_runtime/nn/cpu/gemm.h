// Matrix multiply on the CPU through OpenBLAS's cblas_sgemm. The CUDA twin
// (nn/cuda/, cuBLAS) takes the same arguments with device pointers.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_GEMM_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_GEMM_H_

#include <cstdint>

namespace trainpkg::nn::cpu {

enum class Transpose { kNo, kYes };

// C = alpha * op(A) * op(B) + beta * C, all row-major and contiguous, where
// op(A) is m x k (A is k x m when transposed), op(B) is k x n and C is m x n.
// With beta == 0, C's prior contents are ignored (may be uninitialised).
// REQUIRES: m, n, k >= 0 and each fits in an int.
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
          float alpha, const float* a, const float* b, float beta, float* c);

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_GEMM_H_
