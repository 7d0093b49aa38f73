#include "trainer_runtime/nn/adagrad.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<std::unique_ptr<Adagrad>> Adagrad::Create(AdagradOptions options) {
  if (!(options.learning_rate >= 0.0f) || !(options.initial_accumulator_value >= 0.0f) ||
      !(options.epsilon >= 0.0f)) {
    return absl::InvalidArgumentError(fmt::format(
        "adagrad: learning rate ({}), initial accumulator ({}) and epsilon ({}) must be >= 0",
        options.learning_rate, options.initial_accumulator_value, options.epsilon));
  }
  return std::unique_ptr<Adagrad>(new Adagrad(options));
}

Adagrad::Adagrad(AdagradOptions options)
    : Optimizer(options.learning_rate, 1, options.initial_accumulator_value), options_(options) {}

void Adagrad::Update(int64_t n, float* value, const float* grad, float* state, int64_t /*step*/) {
  kernels::AdagradUpdate(update_device(), n, learning_rate(), options_.epsilon, value, grad, state);
}

}  // namespace trainpkg::nn
