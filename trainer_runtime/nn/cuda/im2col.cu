#include "trainer_runtime/nn/cuda/im2col.h"
#include "trainer_runtime/nn/cuda/internal/launch.cuh"

namespace trainpkg::nn::cuda {
namespace {

using internal::FirstIndex;
using internal::Stride;

// One thread per column entry: row (n, oh, ow), column (kh, kw, c).
__global__ void Im2ColKernel(WindowGeometry g, const float* input, float* columns) {
  const int64_t c = g.channels;
  const int64_t patch = g.window_height * g.window_width * c;
  const int64_t total = g.batch * g.out_height * g.out_width * patch;
  for (int64_t i = FirstIndex(); i < total; i += Stride()) {
    const int64_t row = i / patch;
    const int64_t col = i % patch;
    const int64_t k = col % c;
    const int64_t kw = (col / c) % g.window_width;
    const int64_t kh = col / (c * g.window_width);
    const int64_t ow = row % g.out_width;
    const int64_t oh = (row / g.out_width) % g.out_height;
    const int64_t n = row / (g.out_width * g.out_height);
    const int64_t ih = oh * g.stride_height - g.pad_top + kh;
    const int64_t iw = ow * g.stride_width - g.pad_left + kw;
    const bool inside = ih >= 0 && ih < g.in_height && iw >= 0 && iw < g.in_width;
    columns[i] = inside ? input[((n * g.in_height + ih) * g.in_width + iw) * c + k] : 0.0f;
  }
}

// One thread per input value, gathering every column entry copied from it
// (no atomics, so the sum order is fixed).
__global__ void Col2ImKernel(WindowGeometry g, const float* columns, float* input_grad) {
  const int64_t c = g.channels;
  const int64_t patch = g.window_height * g.window_width * c;
  const int64_t total = g.batch * g.in_height * g.in_width * c;
  for (int64_t i = FirstIndex(); i < total; i += Stride()) {
    const int64_t k = i % c;
    const int64_t iw = (i / c) % g.in_width;
    const int64_t ih = (i / (c * g.in_width)) % g.in_height;
    const int64_t n = i / (c * g.in_width * g.in_height);
    float sum = 0.0f;
    for (int64_t kh = 0; kh < g.window_height; ++kh) {
      const int64_t oh_stride = ih + g.pad_top - kh;
      if (oh_stride < 0 || oh_stride % g.stride_height != 0) continue;
      const int64_t oh = oh_stride / g.stride_height;
      if (oh >= g.out_height) continue;
      for (int64_t kw = 0; kw < g.window_width; ++kw) {
        const int64_t ow_stride = iw + g.pad_left - kw;
        if (ow_stride < 0 || ow_stride % g.stride_width != 0) continue;
        const int64_t ow = ow_stride / g.stride_width;
        if (ow >= g.out_width) continue;
        const int64_t row = (n * g.out_height + oh) * g.out_width + ow;
        sum += columns[row * patch + (kh * g.window_width + kw) * c + k];
      }
    }
    input_grad[i] = sum;
  }
}

}  // namespace

void Im2Col(const WindowGeometry& g, const float* input, float* columns) {
  const int64_t total =
      g.batch * g.out_height * g.out_width * g.window_height * g.window_width * g.channels;
  if (total == 0) return;
  Im2ColKernel<<<internal::Blocks(total), internal::kThreads>>>(g, input, columns);
  internal::CheckLaunch("Im2Col");
}

void Col2Im(const WindowGeometry& g, const float* columns, float* input_grad) {
  const int64_t total = g.batch * g.in_height * g.in_width * g.channels;
  if (total == 0) return;
  Col2ImKernel<<<internal::Blocks(total), internal::kThreads>>>(g, columns, input_grad);
  internal::CheckLaunch("Col2Im");
}

}  // namespace trainpkg::nn::cuda
