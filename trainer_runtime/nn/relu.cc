#include "trainer_runtime/nn/relu.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<Shape> ReLU::OutputShape(const Shape& input_shape) const {
  if (input_shape.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expects an input with a batch dimension, got []", label()));
  }
  return input_shape;
}

void ReLU::Forward(const Tensor& input, bool /*training*/, Tensor* output) {
  kernels::ReluForward(input.device(), input.num_elements(), input.data(), output->data());
}

void ReLU::Backward(const Tensor& /*input*/, const Tensor& output, const Tensor& output_grad,
                    Tensor* input_grad) {
  if (input_grad == nullptr) return;
  kernels::ReluBackward(output.device(), output.num_elements(), output.data(), output_grad.data(),
                        input_grad->data());
}

}  // namespace trainpkg::nn
