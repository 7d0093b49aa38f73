#include "trainer_runtime/ps/internal/optimizer_proto.h"

namespace trainpkg::ps::internal {

OptimizerConfig OptimizerConfigFromProto(const proto::OptimizerConfig& p) {
  OptimizerConfig c;
  c.kind = p.kind();
  c.sgd.learning_rate = p.learning_rate();
  c.sgd.momentum = p.momentum();
  c.sgd.nesterov = p.nesterov();
  c.adam.learning_rate = p.learning_rate();
  c.adam.beta_1 = p.beta_1();
  c.adam.beta_2 = p.beta_2();
  c.adam.epsilon = p.epsilon();
  c.adagrad.learning_rate = p.learning_rate();
  c.adagrad.initial_accumulator_value = p.initial_accumulator_value();
  c.adagrad.epsilon = p.epsilon();
  return c;
}

}  // namespace trainpkg::ps::internal
