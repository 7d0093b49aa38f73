#include "trainer_runtime/train/learning_rate_warmup.h"

#include "base/check.h"

namespace trainpkg::train {

float WarmupLearningRate(float learning_rate, int num_replicas, double warmup_epochs, int epoch,
                         int64_t step, int64_t steps_per_epoch) {
  TP_CHECK(num_replicas >= 1 && steps_per_epoch >= 1, "replicas {} steps per epoch {}",
           num_replicas, steps_per_epoch);
  if (warmup_epochs <= 0) return learning_rate;
  const double e =
      static_cast<double>(epoch) + static_cast<double>(step) / static_cast<double>(steps_per_epoch);
  if (e >= warmup_epochs) return learning_rate;
  const double n = num_replicas;
  return static_cast<float>(static_cast<double>(learning_rate) / n *
                            (e * (n - 1.0) / warmup_epochs + 1.0));
}

}  // namespace trainpkg::train
