// Which optimizer the parameter servers apply, as a value that travels to
// them. The update math is nn's (Sgd, Adam, Adagrad); a ps makes one
// optimizer per shard with MakeOptimizer.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_OPTIMIZER_CONFIG_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_OPTIMIZER_CONFIG_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/adagrad.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/nn/optimizer.h"
#include "trainer_runtime/nn/sgd.h"

namespace trainpkg::ps {

struct OptimizerConfig {
  std::string kind = "adam";  // "sgd", "adam" or "adagrad"
  nn::SgdOptions sgd;
  nn::AdamOptions adam;
  nn::AdagradOptions adagrad;
};

// The optimizer `config` names, from its options. InvalidArgument for an
// unknown kind (naming the valid ones) or the optimizer's own errors.
absl::StatusOr<std::unique_ptr<nn::Optimizer>> MakeOptimizer(const OptimizerConfig& config);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_OPTIMIZER_CONFIG_H_
