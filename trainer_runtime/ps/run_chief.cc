#include "trainer_runtime/ps/run_chief.h"

#include <algorithm>
#include <mutex>
#include <span>
#include <utility>

#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/ps/checkpoint_dir.h"
#include "trainer_runtime/ps/cluster_coordinator.h"
#include "trainer_runtime/ps/ps_checkpoint.h"

namespace trainpkg::ps {
namespace {

struct Totals {
  std::mutex mu;
  double loss_sum = 0.0;
  int64_t steps = 0;
  int64_t correct = 0;
  int64_t examples = 0;
};

// Where training starts: the newest checkpoint's state, or the model's
// initial values.
absl::StatusOr<int64_t> InitializeVariables(nn::Sequential& model, VariableClient& variables,
                                            const CheckpointDir& dir) {
  TP_ASSIGN_OR_RETURN(std::optional<int64_t> latest, dir.LatestStep());
  if (latest.has_value()) {
    const std::filesystem::path path = dir.PathFor(*latest);
    TP_ASSIGN_OR_RETURN(train::TensorBundle bundle, train::ReadTensorBundle(path));
    TP_ASSIGN_OR_RETURN(RestoredCheckpoint restored,
                        ReadPsCheckpoint(bundle, variables.plan(), path.string()));
    TP_RETURN_IF_ERROR(variables.Assign(restored.state));
    TP_LOG(INFO, "resuming from {} at step {}", path.string(), restored.step);
    return restored.step;
  }
  VariableState fresh;
  for (const nn::Parameter* p : model.parameters()) {
    std::span<const float> v = p->value.values();
    fresh.values.emplace_back(v.begin(), v.end());
  }
  TP_RETURN_IF_ERROR(variables.Assign(fresh));
  return int64_t{0};
}

absl::StatusOr<ChiefSummary> Train(nn::Sequential& model, VariableClient& variables,
                                   ClusterCoordinator& coordinator, Totals& totals,
                                   const ChiefOptions& options) {
  CheckpointDir dir(options.checkpoint_dir);
  // A done marker left by an earlier run would let the evaluator stop while
  // this run is still writing checkpoints.
  TP_RETURN_IF_ERROR(dir.ClearDone());
  TP_RETURN_IF_ERROR(variables.Configure(options.optimizer));
  ChiefSummary summary;
  TP_ASSIGN_OR_RETURN(summary.start_step, InitializeVariables(model, variables, dir));
  const int64_t total = options.steps_per_epoch * options.epochs;
  const int64_t every =
      options.checkpoint_every > 0 ? options.checkpoint_every : options.steps_per_epoch;
  int64_t step = summary.start_step;
  while (step < total) {
    // To the next multiple of `every`, not step + every: a run resumed from a
    // checkpoint off that grid (another checkpoint_every) gets back onto it.
    const int64_t end = std::min(total, (step / every + 1) * every);
    for (int64_t s = step; s < end; ++s) coordinator.Schedule(s);
    TP_RETURN_IF_ERROR(coordinator.Join());
    step = end;
    // After Join no step is in flight, so the state pulled is that of exactly
    // `step` applied steps, which is what the checkpoint's step counter says.
    TP_ASSIGN_OR_RETURN(VariableState state, variables.PullState());
    TP_RETURN_IF_ERROR(dir.Write(step, MakePsCheckpoint(model, variables.plan(), state, step)));
    ++summary.checkpoints_written;
    std::lock_guard<std::mutex> lock(totals.mu);
    summary.last_loss = totals.steps > 0 ? totals.loss_sum / static_cast<double>(totals.steps) : 0;
    summary.last_accuracy = totals.examples > 0 ? static_cast<double>(totals.correct) /
                                                      static_cast<double>(totals.examples)
                                                : 0;
    TP_LOG(INFO, "step {}/{}: loss {:.4f} accuracy {:.4f}, checkpoint {}", step, total,
           summary.last_loss, summary.last_accuracy, dir.PathFor(step).string());
    totals.loss_sum = 0;
    totals.steps = totals.correct = totals.examples = 0;
  }
  TP_RETURN_IF_ERROR(dir.MarkDone(total));
  summary.final_step = step;
  summary.rescheduled_steps = coordinator.rescheduled();
  return summary;
}

}  // namespace

absl::StatusOr<ChiefSummary> RunChief(nn::Sequential& model, VariableClient& variables,
                                      std::vector<std::unique_ptr<StepRunner>> workers,
                                      const ChiefOptions& options) {
  if (options.steps_per_epoch < 1 || options.epochs < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "steps_per_epoch {} and epochs {}: parameter-server training needs steps_per_epoch >= 1 "
        "(as TF's ParameterServerStrategy: workers read endless per-worker datasets) and epochs >= "
        "1",
        options.steps_per_epoch, options.epochs));
  }
  if (options.checkpoint_dir.empty()) {
    return absl::InvalidArgumentError(
        "parameter-server training needs a checkpoint directory (--checkpoint_dir or "
        "AIP_CHECKPOINT_DIR) for its checkpoints and the evaluator");
  }
  Totals totals;
  ClusterCoordinator coordinator(std::move(workers), [&totals](int64_t, const StepResult& r) {
    std::lock_guard<std::mutex> lock(totals.mu);
    totals.loss_sum += r.loss;
    ++totals.steps;
    totals.correct += r.correct;
    totals.examples += r.examples;
  });
  absl::StatusOr<ChiefSummary> summary = Train(model, variables, coordinator, totals, options);
  // On failure too: the workers and ps tasks wait for the chief's word and
  // would otherwise never stop.
  coordinator.ShutdownWorkers();
  absl::Status ps_down = variables.ShutdownAll();
  if (!ps_down.ok() && summary.ok())
    TP_LOG(WARNING, "shutting down the ps: {}", ps_down.ToString());
  return summary;
}

}  // namespace trainpkg::ps
