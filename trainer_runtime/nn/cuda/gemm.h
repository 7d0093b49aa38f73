// Matrix multiply on the current CUDA device through cuBLAS: the twin of
// nn/cpu/gemm.h with device pointers. cuBLAS is loaded at the first call
// (dlopen of libcublas.so.<major> of the toolkit the build used), so
// binaries without a GPU never need it; a missing cuBLAS aborts naming the
// library. Calls from several threads share one handle; serialised.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_GEMM_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_GEMM_H_

#include <cstdint>

#include "trainer_runtime/nn/cpu/gemm.h"

namespace trainpkg::nn::cuda {

using cpu::Transpose;

// C = alpha * op(A) * op(B) + beta * C, row-major, as cpu::Gemm.
// REQUIRES: a, b, c device pointers; m, n, k >= 0 and each fits in an int.
void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
          float alpha, const float* a, const float* b, float beta, float* c);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_GEMM_H_
