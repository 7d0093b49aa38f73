// Where a 2-D window (a convolution kernel or a pooling window) falls on an
// NHWC input, with TensorFlow's padding rules:
//   kValid: out = floor((in - window) / stride) + 1, no padding (needs in >= window);
//   kSame:  out = ceil(in / stride), padding total = max((out - 1) * stride +
//           window - in, 0), the smaller half before (top/left).
// Shared by the CPU kernels and their CUDA twins.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_WINDOW_GEOMETRY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_WINDOW_GEOMETRY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::nn {

enum class Padding { kValid, kSame };

struct WindowGeometry {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t channels = 0;
  int64_t window_height = 0;
  int64_t window_width = 0;
  int64_t stride_height = 0;
  int64_t stride_width = 0;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
};

// The geometry of windows of the given size and strides on an input of
// `nhwc_shape`. InvalidArgument (a message for the caller to prefix with
// the layer name) when the input is not rank 4 or, with kValid padding,
// smaller than the window. REQUIRES: window and strides >= 1.
absl::StatusOr<WindowGeometry> ComputeWindowGeometry(const Shape& nhwc_shape, int64_t window_height,
                                                     int64_t window_width, int64_t stride_height,
                                                     int64_t stride_width, Padding padding);

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_WINDOW_GEOMETRY_H_
