#include "trainer_runtime/nn/flatten.h"

#include <algorithm>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<Shape> Flatten::OutputShape(const Shape& input_shape) const {
  if (input_shape.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expects an input with a batch dimension, got []", label()));
  }
  int64_t features = 1;
  for (size_t i = 1; i < input_shape.size(); ++i) features *= input_shape[i];
  return Shape{input_shape[0], features};
}

void Flatten::Forward(const Tensor& input, bool /*training*/, Tensor* output) {
  kernels::CopyValues(input.device(), input.num_elements(), input.data(), output->data());
}

void Flatten::Backward(const Tensor& /*input*/, const Tensor& /*output*/, const Tensor& output_grad,
                       Tensor* input_grad) {
  if (input_grad == nullptr) return;
  kernels::CopyValues(output_grad.device(), output_grad.num_elements(), output_grad.data(),
                      input_grad->data());
}

}  // namespace trainpkg::nn
