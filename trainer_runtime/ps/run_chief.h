// The chief's side of parameter-server training (TF's coordinator program):
//   1. configures every ps (its shards, the optimizer);
//   2. restores the newest checkpoint of options.checkpoint_dir into the ps
//      (a rerun resumes at its step), or else assigns the model's initial
//      values;
//   3. schedules steps [start, steps_per_epoch * epochs) on the workers
//      through a ClusterCoordinator, joining at every checkpoint boundary
//      (every checkpoint_every steps and at the end) to pull the state and
//      write ckpt-<step> atomically;
//   4. marks training done (the evaluator's signal), then shuts down the
//      workers and the ps, also when training failed (best effort).
//
// Errors: InvalidArgument when steps_per_epoch < 1 (TF requires it with
// ParameterServerStrategy too) or no checkpoint dir; a ps failure is
// Aborted naming the task ("ps 1 (127.0.0.1:4242) unreachable: ...");
// Unavailable when every worker has failed; checkpoint I/O errors.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_RUN_CHIEF_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_RUN_CHIEF_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/ps/optimizer_config.h"
#include "trainer_runtime/ps/step_runner.h"
#include "trainer_runtime/ps/variable_client.h"

namespace trainpkg::ps {

struct ChiefOptions {
  int64_t steps_per_epoch = 0;  // required
  int64_t epochs = 1;
  // Steps between checkpoints; 0 means once per epoch.
  int64_t checkpoint_every = 0;
  OptimizerConfig optimizer;
  std::filesystem::path checkpoint_dir;  // required
};

struct ChiefSummary {
  int64_t start_step = 0;  // > 0 when resumed from a checkpoint
  int64_t final_step = 0;
  int64_t rescheduled_steps = 0;
  int checkpoints_written = 0;
  double last_loss = 0.0;      // mean step loss since the previous checkpoint
  double last_accuracy = 0.0;  // training accuracy over the same steps
};

// `model` holds the initial values (same seed on every run); its
// parameters are overwritten with each checkpoint's values.
// REQUIRES: variables' plan was made from model.parameters(); workers not
// empty.
absl::StatusOr<ChiefSummary> RunChief(nn::Sequential& model, VariableClient& variables,
                                      std::vector<std::unique_ptr<StepRunner>> workers,
                                      const ChiefOptions& options);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_RUN_CHIEF_H_
