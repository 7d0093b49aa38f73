#include "trainer_runtime/nn/cuda/gemm.h"

#include <algorithm>
#include <mutex>

#include "base/check.h"
#include "trainer_runtime/nn/cuda/internal/cublas_library.h"

namespace trainpkg::nn::cuda {

void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
          float alpha, const float* a, const float* b, float beta, float* c) {
  if (m == 0 || n == 0) return;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: cuBLAS
  // gets B first, each matrix with its row-major leading dimension.
  const bool ta = transpose_a == Transpose::kYes;
  const bool tb = transpose_b == Transpose::kYes;
  const int lda = static_cast<int>(std::max<int64_t>(1, ta ? m : k));
  const int ldb = static_cast<int>(std::max<int64_t>(1, tb ? k : n));
  const internal::CublasLibrary& cublas = internal::Cublas();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const cublasStatus_t status =
      cublas.sgemm(cublas.handle, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                   static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha, b, ldb, a,
                   lda, &beta, c, static_cast<int>(n));
  TP_CHECK(status == CUBLAS_STATUS_SUCCESS, "cublasSgemm ({}x{}x{}) failed with status {}", m, n, k,
           static_cast<int>(status));
}

}  // namespace trainpkg::nn::cuda
