#include "trainer_runtime/nn/max_pool2d.h"

#include <utility>

#include "absl/status/status.h"
#include "base/check.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<std::unique_ptr<MaxPool2D>> MaxPool2D::Create(int64_t pool_height,
                                                             int64_t pool_width,
                                                             MaxPool2DOptions options) {
  if (pool_height < 1 || pool_width < 1 || options.stride_height < 0 || options.stride_width < 0) {
    return absl::InvalidArgumentError(
        fmt::format("{}: pool size must be >= 1 and strides >= 0, got {}x{} and {}x{}",
                    options.name.empty() ? "max_pooling2d" : options.name, pool_height, pool_width,
                    options.stride_height, options.stride_width));
  }
  if (options.stride_height == 0) options.stride_height = pool_height;
  if (options.stride_width == 0) options.stride_width = pool_width;
  return std::unique_ptr<MaxPool2D>(new MaxPool2D(pool_height, pool_width, std::move(options)));
}

MaxPool2D::MaxPool2D(int64_t pool_height, int64_t pool_width, MaxPool2DOptions options)
    : Layer(options.name),
      pool_height_(pool_height),
      pool_width_(pool_width),
      options_(std::move(options)) {}

absl::StatusOr<WindowGeometry> MaxPool2D::Geometry(const Shape& input_shape) const {
  auto geometry =
      ComputeWindowGeometry(input_shape, pool_height_, pool_width_, options_.stride_height,
                            options_.stride_width, options_.padding);
  if (!geometry.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", label(), std::string(geometry.status().message())));
  }
  return geometry;
}

absl::StatusOr<Shape> MaxPool2D::OutputShape(const Shape& input_shape) const {
  auto g = Geometry(input_shape);
  if (!g.ok()) return g.status();
  return Shape{g->batch, g->out_height, g->out_width, g->channels};
}

void MaxPool2D::Forward(const Tensor& input, bool /*training*/, Tensor* output) {
  auto g = Geometry(input.shape());
  TP_CHECK(g.ok(), "{}", std::string(g.status().message()));
  geometry_ = *g;
  int64_t* argmax = nullptr;
  if (input.device() == Device::kCpu) {
    argmax_.resize(static_cast<size_t>(output->num_elements()));
    argmax = argmax_.data();
  } else {
    argmax = device_argmax_.Reserve(output->num_elements());
  }
  kernels::MaxPoolForward(input.device(), geometry_, input.data(), output->data(), argmax);
}

void MaxPool2D::Backward(const Tensor& /*input*/, const Tensor& /*output*/,
                         const Tensor& output_grad, Tensor* input_grad) {
  if (input_grad == nullptr) return;
  const Device d = output_grad.device();
  kernels::MaxPoolBackward(d, geometry_, output_grad.data(),
                           d == Device::kCpu ? argmax_.data() : device_argmax_.data(),
                           input_grad->data());
}

}  // namespace trainpkg::nn
