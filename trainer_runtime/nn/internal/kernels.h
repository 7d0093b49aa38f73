// The kernels the layers, losses and optimizers call: each takes the device
// of the tensors it works on and runs the CPU kernel (nn/cpu/) or its CUDA
// twin (nn/cuda/), which have the same arguments. Private to nn.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_INTERNAL_KERNELS_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_INTERNAL_KERNELS_H_

#include <cstdint>

#include "trainer_runtime/nn/cpu/gemm.h"
#include "trainer_runtime/nn/device.h"
#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn::kernels {

using cpu::Transpose;

void Gemm(Device device, Transpose transpose_a, Transpose transpose_b, int64_t m, int64_t n,
          int64_t k, float alpha, const float* a, const float* b, float beta, float* c);

void AddRowVector(Device device, int64_t rows, int64_t cols, const float* row, float* out);
void SumRows(Device device, int64_t rows, int64_t cols, const float* in, float* out);
void ReluForward(Device device, int64_t n, const float* x, float* y);
void ReluBackward(Device device, int64_t n, const float* y, const float* dy, float* dx);
void Multiply(Device device, int64_t n, const float* a, const float* b, float* out);
// dst = src, n floats on `device`.
void CopyValues(Device device, int64_t n, const float* src, float* dst);

void Im2Col(Device device, const WindowGeometry& g, const float* input, float* columns);
void Col2Im(Device device, const WindowGeometry& g, const float* columns, float* input_grad);

void MaxPoolForward(Device device, const WindowGeometry& g, const float* input, float* output,
                    int64_t* argmax);
void MaxPoolBackward(Device device, const WindowGeometry& g, const float* output_grad,
                     const int64_t* argmax, float* input_grad);
void GlobalAveragePoolForward(Device device, int64_t batch, int64_t positions, int64_t channels,
                              const float* input, float* output);
void GlobalAveragePoolBackward(Device device, int64_t batch, int64_t positions, int64_t channels,
                               const float* output_grad, float* input_grad);

double SparseSoftmaxCrossEntropy(Device device, int64_t rows, int64_t classes, const float* logits,
                                 const int32_t* labels, float scale, float* grad);
double BinaryCrossEntropyFromLogits(Device device, int64_t n, const float* logits,
                                    const float* targets, float scale, float* grad);

void SgdUpdate(Device device, int64_t n, float learning_rate, float momentum, bool nesterov,
               float* value, const float* grad, float* velocity);
void AdamUpdate(Device device, int64_t n, float learning_rate, float beta_1, float beta_2,
                float epsilon, int64_t step, float* value, const float* grad, float* m, float* v);
void AdagradUpdate(Device device, int64_t n, float learning_rate, float epsilon, float* value,
                   const float* grad, float* sum);

}  // namespace trainpkg::nn::kernels

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_INTERNAL_KERNELS_H_
