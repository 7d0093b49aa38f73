#include "trainer_runtime/nn/conv2d.h"

#include <utility>

#include "absl/status/status.h"
#include "base/check.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

using kernels::Transpose;

absl::StatusOr<std::unique_ptr<Conv2D>> Conv2D::Create(int64_t input_channels, int64_t filters,
                                                       int64_t kernel_height, int64_t kernel_width,
                                                       Conv2DOptions options) {
  if (input_channels < 1 || filters < 1 || kernel_height < 1 || kernel_width < 1 ||
      options.stride_height < 1 || options.stride_width < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: channels, filters, kernel size and strides must be >= 1, got {}, {}, {}x{}, {}x{}",
        options.name.empty() ? "conv2d" : options.name, input_channels, filters, kernel_height,
        kernel_width, options.stride_height, options.stride_width));
  }
  return std::unique_ptr<Conv2D>(
      new Conv2D(input_channels, filters, kernel_height, kernel_width, std::move(options)));
}

Conv2D::Conv2D(int64_t input_channels, int64_t filters, int64_t kernel_height, int64_t kernel_width,
               Conv2DOptions options)
    : Layer(options.name),
      input_channels_(input_channels),
      filters_(filters),
      kernel_height_(kernel_height),
      kernel_width_(kernel_width),
      options_(std::move(options)),
      kernel_("kernel", {kernel_height, kernel_width, input_channels, filters}),
      bias_("bias", {options_.use_bias ? filters : 0}) {}

absl::StatusOr<WindowGeometry> Conv2D::Geometry(const Shape& input_shape) const {
  auto geometry =
      ComputeWindowGeometry(input_shape, kernel_height_, kernel_width_, options_.stride_height,
                            options_.stride_width, options_.padding);
  if (!geometry.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", label(), std::string(geometry.status().message())));
  }
  if (input_shape[3] != input_channels_) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expects input [batch, height, width, {}], got {}", label(),
                    input_channels_, ShapeToString(input_shape)));
  }
  return geometry;
}

absl::StatusOr<Shape> Conv2D::OutputShape(const Shape& input_shape) const {
  auto g = Geometry(input_shape);
  if (!g.ok()) return g.status();
  return Shape{g->batch, g->out_height, g->out_width, filters_};
}

void Conv2D::Forward(const Tensor& input, bool /*training*/, Tensor* output) {
  auto g = Geometry(input.shape());
  TP_CHECK(g.ok(), "{}", std::string(g.status().message()));
  geometry_ = *g;
  const int64_t rows = g->batch * g->out_height * g->out_width;
  const int64_t patch = kernel_height_ * kernel_width_ * input_channels_;
  const Device d = input.device();
  columns_.Resize({rows, patch}, d);
  kernels::Im2Col(d, geometry_, input.data(), columns_.data());
  kernels::Gemm(d, Transpose::kNo, Transpose::kNo, rows, filters_, patch, 1.0f, columns_.data(),
                kernel_.value.data(), 0.0f, output->data());
  if (options_.use_bias)
    kernels::AddRowVector(d, rows, filters_, bias_.value.data(), output->data());
}

void Conv2D::Backward(const Tensor& /*input*/, const Tensor& /*output*/, const Tensor& output_grad,
                      Tensor* input_grad) {
  const int64_t rows = columns_.dim(0);
  const int64_t patch = columns_.dim(1);
  const Device d = columns_.device();
  kernels::Gemm(d, Transpose::kYes, Transpose::kNo, patch, filters_, rows, 1.0f, columns_.data(),
                output_grad.data(), 0.0f, kernel_.grad.data());
  if (options_.use_bias) kernels::SumRows(d, rows, filters_, output_grad.data(), bias_.grad.data());
  if (input_grad == nullptr) return;
  column_grads_.Resize({rows, patch}, d);
  kernels::Gemm(d, Transpose::kNo, Transpose::kYes, rows, patch, filters_, 1.0f, output_grad.data(),
                kernel_.value.data(), 0.0f, column_grads_.data());
  kernels::Col2Im(d, geometry_, column_grads_.data(), input_grad->data());
}

std::vector<Parameter*> Conv2D::parameters() {
  if (!options_.use_bias) return {&kernel_};
  return {&kernel_, &bias_};
}

void Conv2D::InitializeParameters(Rng& rng) {
  Initialize(options_.kernel_initializer, rng, kernel_.value);
  bias_.value.Fill(0.0f);
}

}  // namespace trainpkg::nn
