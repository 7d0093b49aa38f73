#include "trainer_runtime/nn/cpu/elementwise.h"

#include <algorithm>

#include "trainer_runtime/nn/cpu/internal/vector_clones.h"

namespace trainpkg::nn::cpu {

// The loops are written so that the compiler vectorizes them (branch-free
// selects, no loop-carried dependence); see internal/vector_clones.h.

TRAINPKG_VECTOR_CLONES
void AddRowVector(int64_t rows, int64_t cols, const float* row, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    float* o = out + r * cols;
    for (int64_t c = 0; c < cols; ++c) o[c] += row[c];
  }
}

TRAINPKG_VECTOR_CLONES
void SumRows(int64_t rows, int64_t cols, const float* in, float* out) {
  std::fill(out, out + cols, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* i = in + r * cols;
    for (int64_t c = 0; c < cols; ++c) out[c] += i[c];
  }
}

TRAINPKG_VECTOR_CLONES
void ReluForward(int64_t n, const float* x, float* y) {
  // std::max(x, 0) by value (its reference arguments keep GCC from
  // vectorizing): NaN and -0 pass through as before.
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

TRAINPKG_VECTOR_CLONES
void ReluBackward(int64_t n, const float* y, const float* dy, float* dx) {
  for (int64_t i = 0; i < n; ++i) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

TRAINPKG_VECTOR_CLONES
void Multiply(int64_t n, const float* a, const float* b, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

}  // namespace trainpkg::nn::cpu
