// Patch extraction for convolution (NHWC) on the GPU.
// The CUDA twins of nn/cpu/im2col.h: the same arguments and results, with
// device pointers, run on the current device's default stream (host results
// wait for the kernels). A launch failure aborts naming the kernel.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_IM2COL_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_IM2COL_H_

#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn::cuda {

void Im2Col(const WindowGeometry& g, const float* input, float* columns);
void Col2Im(const WindowGeometry& g, const float* columns, float* input_grad);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_IM2COL_H_
