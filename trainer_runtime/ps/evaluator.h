// The evaluator task (worker pool 3; TF's side-car evaluation): watches the
// chief's checkpoint directory (checkpoint_dir.h), evaluates every new
// checkpoint in step order, and for each one appends a line to the metrics
// file
//   {"step":40,"checkpoint":"ckpt-00000040.tpckpt","loss":0.21,"accuracy":0.95}
// and writes "loss" and "accuracy" at that step to a TensorBoard event file
// (event_file_writer.h) in tensorboard_dir. It returns once the chief has
// marked training done and every checkpoint up to then is evaluated.
// A rerun continues after the last step in the metrics file. Checkpoints
// deleted before their turn are skipped (as TF's evaluator skips those it
// was too slow for).
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_EVALUATOR_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_EVALUATOR_H_

#include <filesystem>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "trainer_runtime/ps/evaluate_model.h"
#include "trainer_runtime/train/tensor_bundle.h"

namespace trainpkg::ps {

struct EvaluatorOptions {
  std::filesystem::path checkpoint_dir;
  std::filesystem::path metrics_file;
  std::filesystem::path tensorboard_dir;  // empty: no event file
  std::string hostname = "evaluator";     // the event file name's host part
  absl::Duration poll_interval = absl::Milliseconds(200);
  // Gives up (DeadlineExceeded) after this long without a new checkpoint
  // while training is not marked done.
  absl::Duration idle_timeout = absl::Minutes(30);
  // The event times, the idle timeout and the waits between polls; not
  // owned. nullptr: base::RealClock().
  base::Clock* clock = nullptr;
};

// Evaluates one checkpoint (load it into a model, run the eval set).
using CheckpointEvaluation = std::function<absl::StatusOr<EvalMetrics>(const train::TensorBundle&)>;

// The number of checkpoints evaluated. The evaluation's, the filesystem's
// and the idle timeout's errors; a metrics file line that is not JSON with
// a "step" is DataLoss naming file:line.
absl::StatusOr<int> RunEvaluator(const EvaluatorOptions& options,
                                 const CheckpointEvaluation& evaluate);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_EVALUATOR_H_
