#include "trainer_runtime/nn/dense.h"

#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

using kernels::Transpose;

absl::StatusOr<std::unique_ptr<Dense>> Dense::Create(int64_t input_units, int64_t units,
                                                     DenseOptions options) {
  if (input_units < 1 || units < 1) {
    return absl::InvalidArgumentError(
        fmt::format("{}: input_units and units must be >= 1, got {} and {}",
                    options.name.empty() ? "dense" : options.name, input_units, units));
  }
  return std::unique_ptr<Dense>(new Dense(input_units, units, std::move(options)));
}

Dense::Dense(int64_t input_units, int64_t units, DenseOptions options)
    : Layer(options.name),
      input_units_(input_units),
      units_(units),
      options_(std::move(options)),
      kernel_("kernel", {input_units, units}),
      bias_("bias", {options_.use_bias ? units : 0}) {}

absl::StatusOr<Shape> Dense::OutputShape(const Shape& input_shape) const {
  if (input_shape.size() != 2 || input_shape[1] != input_units_) {
    return absl::InvalidArgumentError(fmt::format("{}: expects input [batch, {}], got {}", label(),
                                                  input_units_, ShapeToString(input_shape)));
  }
  return Shape{input_shape[0], units_};
}

void Dense::Forward(const Tensor& input, bool /*training*/, Tensor* output) {
  const int64_t batch = input.dim(0);
  const Device d = input.device();
  kernels::Gemm(d, Transpose::kNo, Transpose::kNo, batch, units_, input_units_, 1.0f, input.data(),
                kernel_.value.data(), 0.0f, output->data());
  if (options_.use_bias)
    kernels::AddRowVector(d, batch, units_, bias_.value.data(), output->data());
}

void Dense::Backward(const Tensor& input, const Tensor& /*output*/, const Tensor& output_grad,
                     Tensor* input_grad) {
  const int64_t batch = input.dim(0);
  const Device d = input.device();
  kernels::Gemm(d, Transpose::kYes, Transpose::kNo, input_units_, units_, batch, 1.0f, input.data(),
                output_grad.data(), 0.0f, kernel_.grad.data());
  if (options_.use_bias) kernels::SumRows(d, batch, units_, output_grad.data(), bias_.grad.data());
  if (input_grad != nullptr) {
    kernels::Gemm(d, Transpose::kNo, Transpose::kYes, batch, input_units_, units_, 1.0f,
                  output_grad.data(), kernel_.value.data(), 0.0f, input_grad->data());
  }
}

std::vector<Parameter*> Dense::parameters() {
  if (!options_.use_bias) return {&kernel_};
  return {&kernel_, &bias_};
}

void Dense::InitializeParameters(Rng& rng) {
  Initialize(options_.kernel_initializer, rng, kernel_.value);
  bias_.value.Fill(0.0f);
}

}  // namespace trainpkg::nn
