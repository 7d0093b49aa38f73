#include "trainer_runtime/nn/cuda/elementwise.h"
#include "trainer_runtime/nn/cuda/internal/launch.cuh"

namespace trainpkg::nn::cuda {
namespace {

using internal::FirstIndex;
using internal::Stride;

__global__ void AddRowVectorKernel(int64_t rows, int64_t cols, const float* row, float* out) {
  for (int64_t i = FirstIndex(); i < rows * cols; i += Stride()) out[i] += row[i % cols];
}

// One thread per column, rows summed in order (as the CPU kernel does).
__global__ void SumRowsKernel(int64_t rows, int64_t cols, const float* in, float* out) {
  for (int64_t c = FirstIndex(); c < cols; c += Stride()) {
    float sum = 0.0f;
    for (int64_t r = 0; r < rows; ++r) sum += in[r * cols + c];
    out[c] = sum;
  }
}

__global__ void ReluForwardKernel(int64_t n, const float* x, float* y) {
  for (int64_t i = FirstIndex(); i < n; i += Stride()) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void ReluBackwardKernel(int64_t n, const float* y, const float* dy, float* dx) {
  for (int64_t i = FirstIndex(); i < n; i += Stride()) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

__global__ void MultiplyKernel(int64_t n, const float* a, const float* b, float* out) {
  for (int64_t i = FirstIndex(); i < n; i += Stride()) out[i] = a[i] * b[i];
}

}  // namespace

void AddRowVector(int64_t rows, int64_t cols, const float* row, float* out) {
  if (rows * cols == 0) return;
  AddRowVectorKernel<<<internal::Blocks(rows * cols), internal::kThreads>>>(rows, cols, row, out);
  internal::CheckLaunch("AddRowVector");
}

void SumRows(int64_t rows, int64_t cols, const float* in, float* out) {
  if (cols == 0) return;
  SumRowsKernel<<<internal::Blocks(cols), internal::kThreads>>>(rows, cols, in, out);
  internal::CheckLaunch("SumRows");
}

void ReluForward(int64_t n, const float* x, float* y) {
  if (n == 0) return;
  ReluForwardKernel<<<internal::Blocks(n), internal::kThreads>>>(n, x, y);
  internal::CheckLaunch("ReluForward");
}

void ReluBackward(int64_t n, const float* y, const float* dy, float* dx) {
  if (n == 0) return;
  ReluBackwardKernel<<<internal::Blocks(n), internal::kThreads>>>(n, y, dy, dx);
  internal::CheckLaunch("ReluBackward");
}

void Multiply(int64_t n, const float* a, const float* b, float* out) {
  if (n == 0) return;
  MultiplyKernel<<<internal::Blocks(n), internal::kThreads>>>(n, a, b, out);
  internal::CheckLaunch("Multiply");
}

}  // namespace trainpkg::nn::cuda
