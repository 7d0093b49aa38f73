#include "trainer_runtime/nn/window_geometry.h"

#include <algorithm>

#include "absl/status/status.h"
#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::nn {
namespace {

// Output size and padding before, along one dimension.
struct Extent {
  int64_t out;
  int64_t pad_before;
};

Extent ComputeExtent(int64_t in, int64_t window, int64_t stride, Padding padding) {
  if (padding == Padding::kValid) return {(in - window) / stride + 1, 0};
  const int64_t out = (in + stride - 1) / stride;
  const int64_t pad_total = std::max<int64_t>((out - 1) * stride + window - in, 0);
  return {out, pad_total / 2};
}

}  // namespace

absl::StatusOr<WindowGeometry> ComputeWindowGeometry(const Shape& nhwc_shape, int64_t window_height,
                                                     int64_t window_width, int64_t stride_height,
                                                     int64_t stride_width, Padding padding) {
  TP_CHECK(window_height >= 1 && window_width >= 1 && stride_height >= 1 && stride_width >= 1,
           "window {}x{} stride {}x{}", window_height, window_width, stride_height, stride_width);
  if (nhwc_shape.size() != 4) {
    return absl::InvalidArgumentError(fmt::format(
        "expects input [batch, height, width, channels], got {}", ShapeToString(nhwc_shape)));
  }
  if (padding == Padding::kValid &&
      (nhwc_shape[1] < window_height || nhwc_shape[2] < window_width)) {
    return absl::InvalidArgumentError(
        fmt::format("input {} is smaller than the {}x{} window with 'valid' padding",
                    ShapeToString(nhwc_shape), window_height, window_width));
  }
  const Extent rows = ComputeExtent(nhwc_shape[1], window_height, stride_height, padding);
  const Extent cols = ComputeExtent(nhwc_shape[2], window_width, stride_width, padding);
  return WindowGeometry{.batch = nhwc_shape[0],
                        .in_height = nhwc_shape[1],
                        .in_width = nhwc_shape[2],
                        .channels = nhwc_shape[3],
                        .window_height = window_height,
                        .window_width = window_width,
                        .stride_height = stride_height,
                        .stride_width = stride_width,
                        .pad_top = rows.pad_before,
                        .pad_left = cols.pad_before,
                        .out_height = rows.out,
                        .out_width = cols.out};
}

}  // namespace trainpkg::nn
