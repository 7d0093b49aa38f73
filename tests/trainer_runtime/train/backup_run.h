// A crash-and-resume run under BackupAndRestore, as the backup tests compare
// them: an uninterrupted run and one that crashed and was started again must
// end with the same weights.
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_TRAIN_BACKUP_RUN_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_TRAIN_BACKUP_RUN_H_

#include <filesystem>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/train/test_job.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/train/backup_and_restore.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/strategy.h"

namespace trainpkg::train::testing {

struct TrainRun {
  absl::StatusOr<History> history;
  std::vector<float> weights;  // the model's at the end (Weights)
};

// Fits `model` on one device for 5 epochs of MakeDataset(256, 6, 3, 9) in
// batches of 32 (shuffled with seed 4), with Adam (learning rate 0.01), BackupAndRestore into
// `backup_dir` with `backup_options`, and a simulated crash at the end of
// epoch `crash_after` (-1: none). A resumed run is the same call again.
inline TrainRun FitWithBackup(nn::Sequential& model, const std::filesystem::path& backup_dir,
                              int crash_after, BackupOptions backup_options = {}) {
  const Dataset data = MakeDataset(256, 6, 3, 9);
  auto adam = nn::Adam::Create({.learning_rate = 0.01f});
  ShardedSource train(data, 32, 0, 1, 4);
  OneDeviceStrategy strategy;
  auto backup = BackupAndRestore::Create(backup_dir.string(), Replica(0, 1), backup_options);
  EXPECT_THAT(backup, ::trainpkg::testing::IsOk());
  CrashAfter crash(crash_after);
  FitOptions options;
  options.epochs = 5;
  options.callbacks = {backup->get(), &crash};
  absl::StatusOr<History> history = Fit(strategy, model, **adam, train, nullptr, options);
  return {std::move(history), Weights(model)};
}

}  // namespace trainpkg::train::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_TRAIN_BACKUP_RUN_H_
