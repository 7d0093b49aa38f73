// What Fit reports per epoch; every replica sees the same numbers (the
// metrics' raw sums are added across replicas before the ratios are taken).
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_HISTORY_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_HISTORY_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace trainpkg::train {

struct EpochLogs {
  int epoch = 0;                       // 0-based
  double loss = 0;                     // mean training loss over every replica's examples
  double accuracy = 0;                 // fraction correct, over every replica's examples
  int64_t examples = 0;                // training examples seen by all replicas
  std::optional<double> val_loss;      // when Fit had validation data
  std::optional<double> val_accuracy;  // likewise
  double learning_rate = 0;            // the optimizer's rate at the end of the epoch
  // Measured on the chief (rank 0), broadcast to all: wall time of the
  // epoch, its training steps and validation (as Keras's epoch time; not the
  // cross-replica sum of these logs that follows), and the mean time of one
  // training step.
  double seconds = 0;
  double step_seconds = 0;
  double examples_per_second = 0;  // training examples / training steps' wall time
};

// The metric called `name` in Keras's terms ("loss", "accuracy", "val_loss",
// "val_accuracy"); nullopt for another name or a val_ metric without
// validation data.
inline std::optional<double> MetricValue(const EpochLogs& logs, std::string_view name) {
  if (name == "loss") return logs.loss;
  if (name == "accuracy") return logs.accuracy;
  if (name == "val_loss") return logs.val_loss;
  if (name == "val_accuracy") return logs.val_accuracy;
  return std::nullopt;
}

struct History {
  int initial_epoch = 0;  // > 0 when resumed from a backup
  std::vector<EpochLogs> epochs;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_HISTORY_H_
