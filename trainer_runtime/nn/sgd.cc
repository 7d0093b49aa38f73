#include "trainer_runtime/nn/sgd.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<std::unique_ptr<Sgd>> Sgd::Create(SgdOptions options) {
  if (!(options.learning_rate >= 0.0f) || !(options.momentum >= 0.0f)) {
    return absl::InvalidArgumentError(
        fmt::format("sgd: learning rate ({}) and momentum ({}) must be >= 0", options.learning_rate,
                    options.momentum));
  }
  if (options.nesterov && options.momentum == 0.0f) {
    return absl::InvalidArgumentError("sgd: Nesterov momentum needs a momentum > 0");
  }
  return std::unique_ptr<Sgd>(new Sgd(options));
}

Sgd::Sgd(SgdOptions options)
    : Optimizer(options.learning_rate, options.momentum == 0.0f ? 0 : 1, 0.0f), options_(options) {}

void Sgd::Update(int64_t n, float* value, const float* grad, float* state, int64_t /*step*/) {
  kernels::SgdUpdate(update_device(), n, learning_rate(), options_.momentum, options_.nesterov,
                     value, grad, state);
}

}  // namespace trainpkg::nn
