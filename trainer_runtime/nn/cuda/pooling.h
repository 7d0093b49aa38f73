// Pooling kernels (NHWC) on the GPU.
// The CUDA twins of nn/cpu/pooling.h: the same arguments and results, with
// device pointers, run on the current device's default stream (host results
// wait for the kernels). A launch failure aborts naming the kernel.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_POOLING_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_POOLING_H_

#include <cstdint>

#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn::cuda {

// argmax is a device array of int64, as the CPU kernel's, with the same
// tie rule (first in row-major window order).
void MaxPoolForward(const WindowGeometry& g, const float* input, float* output, int64_t* argmax);
void MaxPoolBackward(const WindowGeometry& g, const float* output_grad, const int64_t* argmax,
                     float* input_grad);
void GlobalAveragePoolForward(int64_t batch, int64_t positions, int64_t channels,
                              const float* input, float* output);
void GlobalAveragePoolBackward(int64_t batch, int64_t positions, int64_t channels,
                               const float* output_grad, float* input_grad);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_POOLING_H_
