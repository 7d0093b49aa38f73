#include "trainer_runtime/nn/cpu/im2col.h"

#include <algorithm>

namespace trainpkg::nn::cpu {

void Im2Col(const WindowGeometry& g, const float* input, float* columns) {
  const int64_t c = g.channels;
  float* row = columns;
  for (int64_t n = 0; n < g.batch; ++n) {
    const float* image = input + n * g.in_height * g.in_width * c;
    for (int64_t oh = 0; oh < g.out_height; ++oh) {
      for (int64_t ow = 0; ow < g.out_width; ++ow) {
        for (int64_t kh = 0; kh < g.window_height; ++kh) {
          const int64_t ih = oh * g.stride_height - g.pad_top + kh;
          for (int64_t kw = 0; kw < g.window_width; ++kw, row += c) {
            const int64_t iw = ow * g.stride_width - g.pad_left + kw;
            if (ih < 0 || ih >= g.in_height || iw < 0 || iw >= g.in_width) {
              std::fill_n(row, c, 0.0f);
            } else {
              std::copy_n(image + (ih * g.in_width + iw) * c, c, row);
            }
          }
        }
      }
    }
  }
}

void Col2Im(const WindowGeometry& g, const float* columns, float* input_grad) {
  const int64_t c = g.channels;
  std::fill_n(input_grad, g.batch * g.in_height * g.in_width * c, 0.0f);
  const float* row = columns;
  for (int64_t n = 0; n < g.batch; ++n) {
    float* image = input_grad + n * g.in_height * g.in_width * c;
    for (int64_t oh = 0; oh < g.out_height; ++oh) {
      for (int64_t ow = 0; ow < g.out_width; ++ow) {
        for (int64_t kh = 0; kh < g.window_height; ++kh) {
          const int64_t ih = oh * g.stride_height - g.pad_top + kh;
          for (int64_t kw = 0; kw < g.window_width; ++kw, row += c) {
            const int64_t iw = ow * g.stride_width - g.pad_left + kw;
            if (ih < 0 || ih >= g.in_height || iw < 0 || iw >= g.in_width) continue;
            float* target = image + (ih * g.in_width + iw) * c;
            for (int64_t k = 0; k < c; ++k) target[k] += row[k];
          }
        }
      }
    }
  }
}

}  // namespace trainpkg::nn::cpu
