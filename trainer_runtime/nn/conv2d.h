// 2-D convolution on NHWC batches (Keras's Conv2D): input [batch, height,
// width, input_channels], kernel [kernel_height, kernel_width,
// input_channels, filters], bias [filters], output [batch, out_height,
// out_width, filters] with window_geometry.h's 'valid'/'same' rules.
// Computed as im2col + one GEMM; the patch matrix is kept between Forward
// and Backward and reused across steps.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CONV2D_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CONV2D_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/initializer.h"
#include "trainer_runtime/nn/layer.h"
#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn {

struct Conv2DOptions {
  std::string name = "";  // empty: named by the Sequential ("conv2d", "conv2d_1", ...)
  int64_t stride_height = 1;
  int64_t stride_width = 1;
  Padding padding = Padding::kValid;
  Initializer kernel_initializer = Initializer::kGlorotUniform;
  bool use_bias = true;  // the bias starts at zero
};

class Conv2D final : public Layer {
 public:
  // InvalidArgument unless channels, filters, kernel sizes and strides are >= 1.
  static absl::StatusOr<std::unique_ptr<Conv2D>> Create(int64_t input_channels, int64_t filters,
                                                        int64_t kernel_height, int64_t kernel_width,
                                                        Conv2DOptions options = {});

  std::string_view kind() const override { return "conv2d"; }
  // InvalidArgument unless the input is [batch, height, width, input_channels]
  // and, with 'valid' padding, at least as large as the kernel.
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;
  std::vector<Parameter*> parameters() override;
  void InitializeParameters(Rng& rng) override;

  Parameter& kernel() { return kernel_; }
  Parameter& bias() { return bias_; }

 private:
  Conv2D(int64_t input_channels, int64_t filters, int64_t kernel_height, int64_t kernel_width,
         Conv2DOptions options);
  absl::StatusOr<WindowGeometry> Geometry(const Shape& input_shape) const;

  int64_t input_channels_;
  int64_t filters_;
  int64_t kernel_height_;
  int64_t kernel_width_;
  Conv2DOptions options_;
  Parameter kernel_;
  Parameter bias_;
  WindowGeometry geometry_;  // of the last Forward
  Tensor columns_;           // im2col of the last Forward's input
  Tensor column_grads_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CONV2D_H_
