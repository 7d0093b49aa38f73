#include "trainer_runtime/nn/cuda/internal/launch.cuh"
#include "trainer_runtime/nn/cuda/pooling.h"

namespace trainpkg::nn::cuda {
namespace {

using internal::FirstIndex;
using internal::Stride;

// One thread per output value; the window is scanned in row-major order and
// replaced only by a strictly larger value, as on the CPU.
__global__ void MaxPoolForwardKernel(WindowGeometry g, const float* input, float* output,
                                     int64_t* argmax) {
  const int64_t c = g.channels;
  const int64_t total = g.batch * g.out_height * g.out_width * c;
  for (int64_t i = FirstIndex(); i < total; i += Stride()) {
    const int64_t k = i % c;
    const int64_t ow = (i / c) % g.out_width;
    const int64_t oh = (i / (c * g.out_width)) % g.out_height;
    const int64_t n = i / (c * g.out_width * g.out_height);
    const int64_t h0 = max(oh * g.stride_height - g.pad_top, int64_t{0});
    const int64_t h1 = min(oh * g.stride_height - g.pad_top + g.window_height, g.in_height);
    const int64_t w0 = max(ow * g.stride_width - g.pad_left, int64_t{0});
    const int64_t w1 = min(ow * g.stride_width - g.pad_left + g.window_width, g.in_width);
    int64_t best = ((n * g.in_height + h0) * g.in_width + w0) * c + k;
    for (int64_t ih = h0; ih < h1; ++ih) {
      for (int64_t iw = w0; iw < w1; ++iw) {
        const int64_t at = ((n * g.in_height + ih) * g.in_width + iw) * c + k;
        if (input[at] > input[best]) best = at;
      }
    }
    output[i] = input[best];
    argmax[i] = best;
  }
}

// One thread per input value, gathering the gradients of the outputs whose
// argmax it is (no atomics).
__global__ void MaxPoolBackwardKernel(WindowGeometry g, const float* output_grad,
                                      const int64_t* argmax, float* input_grad) {
  const int64_t c = g.channels;
  const int64_t total = g.batch * g.in_height * g.in_width * c;
  for (int64_t i = FirstIndex(); i < total; i += Stride()) {
    const int64_t k = i % c;
    const int64_t iw = (i / c) % g.in_width;
    const int64_t ih = (i / (c * g.in_width)) % g.in_height;
    const int64_t n = i / (c * g.in_width * g.in_height);
    float sum = 0.0f;
    for (int64_t oh = 0; oh < g.out_height; ++oh) {
      const int64_t top = oh * g.stride_height - g.pad_top;
      if (ih < top || ih >= top + g.window_height) continue;
      for (int64_t ow = 0; ow < g.out_width; ++ow) {
        const int64_t left = ow * g.stride_width - g.pad_left;
        if (iw < left || iw >= left + g.window_width) continue;
        const int64_t out = ((n * g.out_height + oh) * g.out_width + ow) * c + k;
        if (argmax[out] == i) sum += output_grad[out];
      }
    }
    input_grad[i] = sum;
  }
}

__global__ void GlobalAveragePoolForwardKernel(int64_t batch, int64_t positions, int64_t channels,
                                               const float* input, float* output) {
  const float scale = 1.0f / static_cast<float>(positions);
  for (int64_t i = FirstIndex(); i < batch * channels; i += Stride()) {
    const int64_t n = i / channels;
    const int64_t k = i % channels;
    float sum = 0.0f;
    for (int64_t p = 0; p < positions; ++p) sum += input[(n * positions + p) * channels + k];
    output[i] = sum * scale;
  }
}

__global__ void GlobalAveragePoolBackwardKernel(int64_t batch, int64_t positions, int64_t channels,
                                                const float* output_grad, float* input_grad) {
  const float scale = 1.0f / static_cast<float>(positions);
  for (int64_t i = FirstIndex(); i < batch * positions * channels; i += Stride()) {
    const int64_t n = i / (positions * channels);
    input_grad[i] = output_grad[n * channels + i % channels] * scale;
  }
}

}  // namespace

void MaxPoolForward(const WindowGeometry& g, const float* input, float* output, int64_t* argmax) {
  const int64_t total = g.batch * g.out_height * g.out_width * g.channels;
  if (total == 0) return;
  MaxPoolForwardKernel<<<internal::Blocks(total), internal::kThreads>>>(g, input, output, argmax);
  internal::CheckLaunch("MaxPoolForward");
}

void MaxPoolBackward(const WindowGeometry& g, const float* output_grad, const int64_t* argmax,
                     float* input_grad) {
  const int64_t total = g.batch * g.in_height * g.in_width * g.channels;
  if (total == 0) return;
  MaxPoolBackwardKernel<<<internal::Blocks(total), internal::kThreads>>>(g, output_grad, argmax,
                                                                         input_grad);
  internal::CheckLaunch("MaxPoolBackward");
}

void GlobalAveragePoolForward(int64_t batch, int64_t positions, int64_t channels,
                              const float* input, float* output) {
  if (batch * channels == 0) return;
  GlobalAveragePoolForwardKernel<<<internal::Blocks(batch * channels), internal::kThreads>>>(
      batch, positions, channels, input, output);
  internal::CheckLaunch("GlobalAveragePoolForward");
}

void GlobalAveragePoolBackward(int64_t batch, int64_t positions, int64_t channels,
                               const float* output_grad, float* input_grad) {
  const int64_t total = batch * positions * channels;
  if (total == 0) return;
  GlobalAveragePoolBackwardKernel<<<internal::Blocks(total), internal::kThreads>>>(
      batch, positions, channels, output_grad, input_grad);
  internal::CheckLaunch("GlobalAveragePoolBackward");
}

}  // namespace trainpkg::nn::cuda
