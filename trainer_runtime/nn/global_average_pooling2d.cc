#include "trainer_runtime/nn/global_average_pooling2d.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<Shape> GlobalAveragePooling2D::OutputShape(const Shape& input_shape) const {
  if (input_shape.size() != 4 || input_shape[1] < 1 || input_shape[2] < 1) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expects input [batch, height >= 1, width >= 1, channels], got {}", label(),
                    ShapeToString(input_shape)));
  }
  return Shape{input_shape[0], input_shape[3]};
}

void GlobalAveragePooling2D::Forward(const Tensor& input, bool /*training*/, Tensor* output) {
  kernels::GlobalAveragePoolForward(input.device(), input.dim(0), input.dim(1) * input.dim(2),
                                    input.dim(3), input.data(), output->data());
}

void GlobalAveragePooling2D::Backward(const Tensor& input, const Tensor& /*output*/,
                                      const Tensor& output_grad, Tensor* input_grad) {
  if (input_grad == nullptr) return;
  kernels::GlobalAveragePoolBackward(input.device(), input.dim(0), input.dim(1) * input.dim(2),
                                     input.dim(3), output_grad.data(), input_grad->data());
}

}  // namespace trainpkg::nn
