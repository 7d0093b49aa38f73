// Horovod's gradual learning-rate warmup (LearningRateWarmupCallback; Goyal
// et al. 2017, "Accurate, Large Minibatch SGD"): with N replicas the rate
// grows linearly from lr / N at the start to lr after `warmup_epochs`
// epochs, per step:
//   lr(e) = lr / N * (e * (N - 1) / warmup_epochs + 1),  e = epoch + step / steps_per_epoch
// and stays lr from e >= warmup_epochs on.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_LEARNING_RATE_WARMUP_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_LEARNING_RATE_WARMUP_H_

#include <cstdint>

namespace trainpkg::train {

// The rate for step `step` (0-based) of epoch `epoch` (0-based).
// warmup_epochs <= 0 means no warmup (always `learning_rate`).
// REQUIRES: num_replicas >= 1, steps_per_epoch >= 1.
float WarmupLearningRate(float learning_rate, int num_replicas, double warmup_epochs, int epoch,
                         int64_t step, int64_t steps_per_epoch);

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_LEARNING_RATE_WARMUP_H_
