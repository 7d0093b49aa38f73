// Pooling kernels on NHWC CPU buffers. The CUDA twins take the same
// arguments with device pointers.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_POOLING_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_POOLING_H_

#include <cstdint>

#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn::cpu {

// output[n, oh, ow, c] = the maximum of the input window (positions in the
// padding are not candidates; every 'same' window holds at least one real
// position). argmax receives, per output value, the flat input index of
// the maximum; on a tie, the first in row-major window order (top-left
// first), so gradients of tied inputs go to one well-defined position.
void MaxPoolForward(const WindowGeometry& g, const float* input, float* output, int64_t* argmax);

// Overwrites input_grad with zeros plus each output gradient added at its
// argmax position (overlapping windows add up).
void MaxPoolBackward(const WindowGeometry& g, const float* output_grad, const int64_t* argmax,
                     float* input_grad);

// output[n, c] = mean over the height * width positions of input[n, :, :, c].
void GlobalAveragePoolForward(int64_t batch, int64_t positions, int64_t channels,
                              const float* input, float* output);
// input_grad[n, p, c] = output_grad[n, c] / positions.
void GlobalAveragePoolBackward(int64_t batch, int64_t positions, int64_t channels,
                               const float* output_grad, float* input_grad);

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_POOLING_H_
