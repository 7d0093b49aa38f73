#include "trainer_runtime/nn/adam.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<std::unique_ptr<Adam>> Adam::Create(AdamOptions options) {
  auto in_unit = [](float beta) { return beta >= 0.0f && beta < 1.0f; };
  if (!(options.learning_rate >= 0.0f) || !(options.epsilon >= 0.0f) || !in_unit(options.beta_1) ||
      !in_unit(options.beta_2)) {
    return absl::InvalidArgumentError(
        fmt::format("adam: needs learning rate >= 0, epsilon >= 0 and betas in [0, 1); got lr {}, "
                    "betas {} / {}, epsilon {}",
                    options.learning_rate, options.beta_1, options.beta_2, options.epsilon));
  }
  return std::unique_ptr<Adam>(new Adam(options));
}

Adam::Adam(AdamOptions options) : Optimizer(options.learning_rate, 2, 0.0f), options_(options) {}

void Adam::Update(int64_t n, float* value, const float* grad, float* state, int64_t step) {
  kernels::AdamUpdate(update_device(), n, learning_rate(), options_.beta_1, options_.beta_2,
                      options_.epsilon, step, value, grad, state, state + n);
}

}  // namespace trainpkg::nn
