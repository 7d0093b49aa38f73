#include "trainer_runtime/nn/internal/kernels.h"

#include <algorithm>

#include "trainer_runtime/nn/cpu/elementwise.h"
#include "trainer_runtime/nn/cpu/im2col.h"
#include "trainer_runtime/nn/cpu/losses.h"
#include "trainer_runtime/nn/cpu/optimizer_updates.h"
#include "trainer_runtime/nn/cpu/pooling.h"
#include "trainer_runtime/nn/cuda/device_memory.h"

#ifdef TRAINPKG_HAVE_CUDA
#include "trainer_runtime/nn/cuda/elementwise.h"
#include "trainer_runtime/nn/cuda/gemm.h"
#include "trainer_runtime/nn/cuda/im2col.h"
#include "trainer_runtime/nn/cuda/losses.h"
#include "trainer_runtime/nn/cuda/optimizer_updates.h"
#include "trainer_runtime/nn/cuda/pooling.h"
// A kCuda tensor's kernel runs the CUDA twin.
#define TP_NN_DISPATCH(device, call) ((device) == Device::kCuda ? cuda::call : cpu::call)
#else
#include "base/check.h"
// Without CUDA no kCuda tensor can be made (Tensor::Zeros refuses), so only
// the CPU kernels are reachable.
#define TP_NN_DISPATCH(device, call) (RequireCpu(device), cpu::call)
#endif

namespace trainpkg::nn::kernels {

#ifndef TRAINPKG_HAVE_CUDA
namespace {
void RequireCpu(Device device) {
  TP_CHECK(device == Device::kCpu, "a {} tensor in a build without CUDA", DeviceName(device));
}
}  // namespace
#endif

void Gemm(Device device, Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, float alpha, const float* a, const float* b, float beta, float* c) {
  return TP_NN_DISPATCH(device, Gemm(transpose_a, transpose_b, m, n, k, alpha, a, b, beta, c));
}

void AddRowVector(Device device, int64_t rows, int64_t cols, const float* row, float* out) {
  return TP_NN_DISPATCH(device, AddRowVector(rows, cols, row, out));
}

void SumRows(Device device, int64_t rows, int64_t cols, const float* in, float* out) {
  return TP_NN_DISPATCH(device, SumRows(rows, cols, in, out));
}

void ReluForward(Device device, int64_t n, const float* x, float* y) {
  return TP_NN_DISPATCH(device, ReluForward(n, x, y));
}

void ReluBackward(Device device, int64_t n, const float* y, const float* dy, float* dx) {
  return TP_NN_DISPATCH(device, ReluBackward(n, y, dy, dx));
}

void Multiply(Device device, int64_t n, const float* a, const float* b, float* out) {
  return TP_NN_DISPATCH(device, Multiply(n, a, b, out));
}

void Im2Col(Device device, const WindowGeometry& g, const float* input, float* columns) {
  return TP_NN_DISPATCH(device, Im2Col(g, input, columns));
}

void Col2Im(Device device, const WindowGeometry& g, const float* columns, float* input_grad) {
  return TP_NN_DISPATCH(device, Col2Im(g, columns, input_grad));
}

void MaxPoolForward(Device device, const WindowGeometry& g, const float* input, float* output,
                    int64_t* argmax) {
  return TP_NN_DISPATCH(device, MaxPoolForward(g, input, output, argmax));
}

void MaxPoolBackward(Device device, const WindowGeometry& g, const float* output_grad,
                     const int64_t* argmax, float* input_grad) {
  return TP_NN_DISPATCH(device, MaxPoolBackward(g, output_grad, argmax, input_grad));
}

void GlobalAveragePoolForward(Device device, int64_t batch, int64_t positions, int64_t channels,
                              const float* input, float* output) {
  return TP_NN_DISPATCH(device,
                        GlobalAveragePoolForward(batch, positions, channels, input, output));
}

void GlobalAveragePoolBackward(Device device, int64_t batch, int64_t positions, int64_t channels,
                               const float* output_grad, float* input_grad) {
  return TP_NN_DISPATCH(
      device, GlobalAveragePoolBackward(batch, positions, channels, output_grad, input_grad));
}

double SparseSoftmaxCrossEntropy(Device device, int64_t rows, int64_t classes, const float* logits,
                                 const int32_t* labels, float scale, float* grad) {
  return TP_NN_DISPATCH(device,
                        SparseSoftmaxCrossEntropy(rows, classes, logits, labels, scale, grad));
}

double BinaryCrossEntropyFromLogits(Device device, int64_t n, const float* logits,
                                    const float* targets, float scale, float* grad) {
  return TP_NN_DISPATCH(device, BinaryCrossEntropyFromLogits(n, logits, targets, scale, grad));
}

void SgdUpdate(Device device, int64_t n, float learning_rate, float momentum, bool nesterov,
               float* value, const float* grad, float* velocity) {
  return TP_NN_DISPATCH(device,
                        SgdUpdate(n, learning_rate, momentum, nesterov, value, grad, velocity));
}

void AdamUpdate(Device device, int64_t n, float learning_rate, float beta_1, float beta_2,
                float epsilon, int64_t step, float* value, const float* grad, float* m, float* v) {
  return TP_NN_DISPATCH(
      device, AdamUpdate(n, learning_rate, beta_1, beta_2, epsilon, step, value, grad, m, v));
}

void AdagradUpdate(Device device, int64_t n, float learning_rate, float epsilon, float* value,
                   const float* grad, float* sum) {
  return TP_NN_DISPATCH(device, AdagradUpdate(n, learning_rate, epsilon, value, grad, sum));
}

void CopyValues(Device device, int64_t n, const float* src, float* dst) {
  if (device == Device::kCpu) {
    std::copy_n(src, n, dst);
  } else {
    cuda::Copy(dst, src, static_cast<size_t>(n) * sizeof(float));
  }
}

}  // namespace trainpkg::nn::kernels
