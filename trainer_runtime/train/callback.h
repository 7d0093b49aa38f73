// Hooks into Fit (Keras's Callback): BackupAndRestore, TensorBoardLogger and
// HypertuneCallback are callbacks; user code can add its own. Every replica
// runs every callback; a callback that writes files checks is_chief().
// A callback's error ends Fit with that error (the others are not called).
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_CALLBACK_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_CALLBACK_H_

#include "absl/status/status.h"
#include "trainer_runtime/nn/optimizer.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/train/history.h"
#include "trainer_runtime/train/strategy.h"

namespace trainpkg::train {

// What callbacks see of the run.
struct TrainContext {
  Strategy& strategy;
  nn::Sequential& model;
  nn::Optimizer& optimizer;
  int epochs;  // FitOptions::epochs
  // The first epoch Fit runs; OnTrainBegin may raise it (resuming).
  int initial_epoch = 0;
};

class Callback {
 public:
  virtual ~Callback() = default;
  // Before the first epoch, before rank 0's variables are broadcast.
  virtual absl::Status OnTrainBegin(TrainContext& /*context*/) { return absl::OkStatus(); }
  // Before each epoch's first training step (Keras's on_epoch_begin).
  virtual absl::Status OnEpochBegin(TrainContext& /*context*/, int /*epoch*/) {
    return absl::OkStatus();
  }
  // After each epoch's training and validation, with the summed metrics.
  virtual absl::Status OnEpochEnd(TrainContext& /*context*/, const EpochLogs& /*logs*/) {
    return absl::OkStatus();
  }
  // After the last epoch, when training succeeded.
  virtual absl::Status OnTrainEnd(TrainContext& /*context*/, const History& /*history*/) {
    return absl::OkStatus();
  }
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_CALLBACK_H_
