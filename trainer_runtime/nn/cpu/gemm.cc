#include "trainer_runtime/nn/cpu/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <limits>

#include "base/check.h"

namespace trainpkg::nn::cpu {

void Gemm(Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n, int64_t k,
          float alpha, const float* a, const float* b, float beta, float* c) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  TP_CHECK(m >= 0 && n >= 0 && k >= 0 && m <= kMax && n <= kMax && k <= kMax,
           "gemm dimensions {}x{}x{}", m, n, k);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    // BLAS leaves C alone when k == 0 only for beta == 1; make beta == 0 exact.
    for (int64_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
    return;
  }
  const bool ta = transpose_a == Transpose::kYes;
  const bool tb = transpose_b == Transpose::kYes;
  const int lda = static_cast<int>(ta ? m : k);
  const int ldb = static_cast<int>(tb ? k : n);
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a,
              std::max(lda, 1), b, std::max(ldb, 1), beta, c, static_cast<int>(n));
}

}  // namespace trainpkg::nn::cpu
