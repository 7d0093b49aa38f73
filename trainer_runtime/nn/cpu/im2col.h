// Patch extraction for convolution as a matrix product (NHWC). The CUDA twins
// take the same arguments with device pointers.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_IM2COL_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_IM2COL_H_

#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn::cpu {

// Writes columns [batch * out_height * out_width, window_height *
// window_width * channels]: row (n, oh, ow) holds the input patch under that
// output position in (kh, kw, c) order, zeros where it hangs over the padding.
// That order matches a [kh, kw, in, out] kernel read as a matrix.
void Im2Col(const WindowGeometry& g, const float* input, float* columns);

// The adjoint of Im2Col: overwrites input_grad [batch, in_height, in_width,
// channels] with the sum of every column entry that was copied from each
// input position (padding entries are dropped).
void Col2Im(const WindowGeometry& g, const float* columns, float* input_grad);

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_IM2COL_H_
