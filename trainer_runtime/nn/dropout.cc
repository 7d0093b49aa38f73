#include "trainer_runtime/nn/dropout.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

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

absl::Status Dropout::RestoreRngState(std::span<const uint64_t> state) {
  if (!rng_.RestoreState(state)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {} numbers are not a generator state (want {} from a checkpoint of this "
                    "build)",
                    label(), state.size(), rng_.State().size()));
  }
  return absl::OkStatus();
}

void Dropout::Forward(const Tensor& input, bool training, Tensor* output) {
  masked_ = training && rate_ > 0.0f;
  if (!masked_) {
    kernels::CopyValues(input.device(), input.num_elements(), input.data(), output->data());
    return;
  }
  // The mask is drawn on the host (the same masks on every device), then
  // copied next to a GPU input.
  const bool on_host = input.device() == Device::kCpu;
  Tensor& drawn = on_host ? mask_ : host_mask_;
  drawn.Resize(input.shape(), Device::kCpu);
  const float scale = 1.0f / (1.0f - rate_);
  for (float& m : drawn.values()) m = rng_.Uniform01() >= rate_ ? scale : 0.0f;
  if (!on_host) {
    mask_.Resize(input.shape(), input.device());
    mask_.CopyFromHost(host_mask_.values());
  }
  kernels::Multiply(input.device(), input.num_elements(), input.data(), mask_.data(),
                    output->data());
}

void Dropout::Backward(const Tensor& /*input*/, const Tensor& /*output*/, const Tensor& output_grad,
                       Tensor* input_grad) {
  if (input_grad == nullptr) return;
  if (!masked_) {
    kernels::CopyValues(output_grad.device(), output_grad.num_elements(), output_grad.data(),
                        input_grad->data());
    return;
  }
  kernels::Multiply(output_grad.device(), output_grad.num_elements(), output_grad.data(),
                    mask_.data(), input_grad->data());
}

}  // namespace trainpkg::nn
