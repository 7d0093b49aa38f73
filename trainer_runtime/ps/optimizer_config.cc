#include "trainer_runtime/ps/optimizer_config.h"

#include "fmt/format.h"

namespace trainpkg::ps {

absl::StatusOr<std::unique_ptr<nn::Optimizer>> MakeOptimizer(const OptimizerConfig& config) {
  if (config.kind == "sgd") {
    auto sgd = nn::Sgd::Create(config.sgd);
    if (!sgd.ok()) return sgd.status();
    return std::unique_ptr<nn::Optimizer>(std::move(*sgd));
  }
  if (config.kind == "adam") {
    auto adam = nn::Adam::Create(config.adam);
    if (!adam.ok()) return adam.status();
    return std::unique_ptr<nn::Optimizer>(std::move(*adam));
  }
  if (config.kind == "adagrad") {
    auto adagrad = nn::Adagrad::Create(config.adagrad);
    if (!adagrad.ok()) return adagrad.status();
    return std::unique_ptr<nn::Optimizer>(std::move(*adagrad));
  }
  return absl::InvalidArgumentError(
      fmt::format("optimizer \"{}\": must be sgd, adam or adagrad", config.kind));
}

}  // namespace trainpkg::ps
