#include "trainer_runtime/nn/dropout.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/cpu/elementwise.h"

namespace trainpkg::nn {

absl::StatusOr<std::unique_ptr<Dropout>> Dropout::Create(float rate, DropoutOptions options) {
  if (!(rate >= 0.0f && rate < 1.0f)) {
    return absl::InvalidArgumentError(fmt::format("{}: rate must be in [0, 1), got {}",
                                                  options.name.empty() ? "dropout" : options.name,
                                                  rate));
  }
  return std::unique_ptr<Dropout>(new Dropout(rate, std::move(options)));
}

Dropout::Dropout(float rate, DropoutOptions options)
    : Layer(std::move(options.name)), rate_(rate), rng_(options.seed) {}

absl::StatusOr<Shape> Dropout::OutputShape(const Shape& input_shape) const {
  if (input_shape.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: expects an input with a batch dimension, got []", label()));
  }
  return input_shape;
}

void Dropout::Forward(const Tensor& input, bool training, Tensor* output) {
  masked_ = training && rate_ > 0.0f;
  if (!masked_) {
    std::copy_n(input.data(), input.num_elements(), output->data());
    return;
  }
  mask_.Resize(input.shape());
  const float scale = 1.0f / (1.0f - rate_);
  float* mask = mask_.data();
  for (int64_t i = 0; i < mask_.num_elements(); ++i) {
    mask[i] = rng_.Uniform01() >= rate_ ? scale : 0.0f;
  }
  cpu::Multiply(input.num_elements(), input.data(), mask, output->data());
}

void Dropout::Backward(const Tensor& /*input*/, const Tensor& /*output*/, const Tensor& output_grad,
                       Tensor* input_grad) {
  if (input_grad == nullptr) return;
  if (!masked_) {
    std::copy_n(output_grad.data(), output_grad.num_elements(), input_grad->data());
    return;
  }
  cpu::Multiply(output_grad.num_elements(), output_grad.data(), mask_.data(), input_grad->data());
}

}  // namespace trainpkg::nn
