#include "trainer_runtime/nn/cpu/pooling.h"

#include <algorithm>

namespace trainpkg::nn::cpu {

void MaxPoolForward(const WindowGeometry& g, const float* input, float* output, int64_t* argmax) {
  const int64_t c = g.channels;
  for (int64_t n = 0; n < g.batch; ++n) {
    const int64_t image = n * g.in_height * g.in_width;
    for (int64_t oh = 0; oh < g.out_height; ++oh) {
      const int64_t h0 = std::max<int64_t>(oh * g.stride_height - g.pad_top, 0);
      const int64_t h1 = std::min(oh * g.stride_height - g.pad_top + g.window_height, g.in_height);
      for (int64_t ow = 0; ow < g.out_width; ++ow, output += c, argmax += c) {
        const int64_t w0 = std::max<int64_t>(ow * g.stride_width - g.pad_left, 0);
        const int64_t w1 = std::min(ow * g.stride_width - g.pad_left + g.window_width, g.in_width);
        // The first real position seeds every channel; later ones replace it
        // only when strictly larger.
        const int64_t first = (image + h0 * g.in_width + w0) * c;
        for (int64_t k = 0; k < c; ++k) {
          output[k] = input[first + k];
          argmax[k] = first + k;
        }
        for (int64_t ih = h0; ih < h1; ++ih) {
          for (int64_t iw = w0; iw < w1; ++iw) {
            const int64_t base = (image + ih * g.in_width + iw) * c;
            for (int64_t k = 0; k < c; ++k) {
              if (input[base + k] > output[k]) {
                output[k] = input[base + k];
                argmax[k] = base + k;
              }
            }
          }
        }
      }
    }
  }
}

void MaxPoolBackward(const WindowGeometry& g, const float* output_grad, const int64_t* argmax,
                     float* input_grad) {
  std::fill_n(input_grad, g.batch * g.in_height * g.in_width * g.channels, 0.0f);
  const int64_t outputs = g.batch * g.out_height * g.out_width * g.channels;
  for (int64_t i = 0; i < outputs; ++i) input_grad[argmax[i]] += output_grad[i];
}

void GlobalAveragePoolForward(int64_t batch, int64_t positions, int64_t channels,
                              const float* input, float* output) {
  const float scale = 1.0f / static_cast<float>(positions);
  for (int64_t n = 0; n < batch; ++n, output += channels) {
    std::fill_n(output, channels, 0.0f);
    for (int64_t p = 0; p < positions; ++p, input += channels) {
      for (int64_t k = 0; k < channels; ++k) output[k] += input[k];
    }
    for (int64_t k = 0; k < channels; ++k) output[k] *= scale;
  }
}

void GlobalAveragePoolBackward(int64_t batch, int64_t positions, int64_t channels,
                               const float* output_grad, float* input_grad) {
  const float scale = 1.0f / static_cast<float>(positions);
  for (int64_t n = 0; n < batch; ++n, output_grad += channels) {
    for (int64_t p = 0; p < positions; ++p, input_grad += channels) {
      for (int64_t k = 0; k < channels; ++k) input_grad[k] = output_grad[k] * scale;
    }
  }
}

}  // namespace trainpkg::nn::cpu
