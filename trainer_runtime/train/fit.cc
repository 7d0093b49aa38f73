#include "trainer_runtime/train/fit.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/sparse_categorical_accuracy.h"
#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"
#include "trainer_runtime/train/learning_rate_warmup.h"

namespace trainpkg::train {
namespace {

// Raw sums of one epoch on one replica, in the order they are gathered.
struct EpochSums {
  double loss_sum = 0;
  double correct = 0;
  double examples = 0;
  double val_loss_sum = 0;
  double val_correct = 0;
  double val_examples = 0;
};

absl::StatusOr<int64_t> AgreedSteps(Strategy& strategy, BatchSource& train,
                                    const FitOptions& options) {
  if (options.steps_per_epoch > 0) return options.steps_per_epoch;
  const double mine = static_cast<double>(train.num_batches());
  TP_ASSIGN_OR_RETURN(std::vector<double> all, strategy.GatherFromReplicas({&mine, 1}));
  // Not an error when they differ: DATA sharding of an uneven data set gives
  // some replicas a batch more, which they leave unread.
  const double fewest = *std::min_element(all.begin(), all.end());
  if (fewest < 1) {
    return absl::InvalidArgumentError(
        "Fit: a replica's training source has no batches (steps_per_epoch would be 0)");
  }
  return static_cast<int64_t>(fewest);
}

absl::Status AgreeOnInitialEpoch(Strategy& strategy, int initial_epoch) {
  const double mine = initial_epoch;
  TP_ASSIGN_OR_RETURN(std::vector<double> all, strategy.GatherFromReplicas({&mine, 1}));
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      return absl::FailedPreconditionError(fmt::format(
          "Fit: rank {} starts at epoch {} but rank 0 at epoch {}; every replica must see the "
          "same backup (is the backup directory shared by all workers?)",
          r, all[r], all[0]));
    }
  }
  return absl::OkStatus();
}

absl::Status Validate(nn::Sequential& model, BatchSource& validation, int epoch, Batch& batch,
                      EpochSums& sums) {
  TP_RETURN_IF_ERROR(validation.StartEpoch(epoch));
  nn::SparseCategoricalAccuracy accuracy;
  while (true) {
    TP_ASSIGN_OR_RETURN(bool more, validation.Next(batch));
    if (!more) break;
    TP_ASSIGN_OR_RETURN(const nn::Tensor* logits, model.Forward(batch.features, false));
    TP_ASSIGN_OR_RETURN(float loss, nn::SparseSoftmaxCrossEntropy(*logits, batch.labels));
    TP_RETURN_IF_ERROR(accuracy.Update(*logits, batch.labels));
    sums.val_loss_sum += static_cast<double>(loss) * static_cast<double>(batch.labels.size());
  }
  sums.val_correct = static_cast<double>(accuracy.correct());
  sums.val_examples = static_cast<double>(accuracy.total());
  return absl::OkStatus();
}

std::string ProgressLine(const EpochLogs& logs, int epochs) {
  std::string line = fmt::format("epoch {}/{} - loss {:.4f} - accuracy {:.4f}", logs.epoch + 1,
                                 epochs, logs.loss, logs.accuracy);
  if (logs.val_loss) {
    line +=
        fmt::format(" - val_loss {:.4f} - val_accuracy {:.4f}", *logs.val_loss, *logs.val_accuracy);
  }
  line += fmt::format(" - lr {:.6g} - {:.3f}s - {:.0f} examples/s", logs.learning_rate,
                      logs.seconds, logs.examples_per_second);
  return line;
}

}  // namespace

absl::StatusOr<History> Fit(Strategy& strategy, nn::Sequential& model, nn::Optimizer& optimizer,
                            BatchSource& train, BatchSource* validation,
                            const FitOptions& options) {
  if (options.epochs < 1) {
    return absl::InvalidArgumentError(
        fmt::format("Fit: epochs is {}; must be >= 1", options.epochs));
  }
  if (options.steps_per_epoch < 0 || options.warmup_epochs < 0) {
    return absl::InvalidArgumentError(
        fmt::format("Fit: steps_per_epoch {} and warmup_epochs {} must be >= 0",
                    options.steps_per_epoch, options.warmup_epochs));
  }
  TrainContext context{strategy, model, optimizer, options.epochs};
  for (Callback* callback : options.callbacks) TP_RETURN_IF_ERROR(callback->OnTrainBegin(context));
  // Checked before any step: replicas at different epochs would run different
  // numbers of collectives and hang instead of failing.
  TP_RETURN_IF_ERROR(AgreeOnInitialEpoch(strategy, context.initial_epoch));
  const std::vector<nn::Parameter*>& parameters = model.parameters();
  // Rank 0's values everywhere: replicas seeded differently, or one that
  // restored while another did not, start from one model.
  TP_RETURN_IF_ERROR(strategy.BroadcastParameters(parameters));
  TP_ASSIGN_OR_RETURN(const int64_t steps, AgreedSteps(strategy, train, options));

  TP_ASSIGN_OR_RETURN(std::unique_ptr<BucketedGradientReducer> reducer,
                      strategy.MakeGradientReducer(parameters));
  const std::function<void(nn::Parameter&)> on_ready =
      reducer ? std::function<void(nn::Parameter&)>(
                    [&reducer](nn::Parameter& p) { reducer->GradientReady(p); })
              : nullptr;
  const float base_lr = optimizer.learning_rate();
  base::Clock& clock = options.clock != nullptr ? *options.clock : base::RealClock();
  History history;
  history.initial_epoch = context.initial_epoch;
  Batch batch;
  nn::Tensor logits_grad;
  for (int epoch = context.initial_epoch; epoch < options.epochs; ++epoch) {
    for (Callback* callback : options.callbacks) {
      TP_RETURN_IF_ERROR(callback->OnEpochBegin(context, epoch));
    }
    TP_RETURN_IF_ERROR(train.StartEpoch(epoch));
    nn::SparseCategoricalAccuracy accuracy;
    EpochSums sums;
    const absl::Time start = clock.Now();
    for (int64_t step = 0; step < steps; ++step) {
      if (options.warmup_epochs > 0) {
        optimizer.set_learning_rate(WarmupLearningRate(base_lr, strategy.num_replicas(),
                                                       options.warmup_epochs, epoch, step, steps));
      }
      TP_ASSIGN_OR_RETURN(bool more, train.Next(batch));
      if (!more) {
        return absl::FailedPreconditionError(fmt::format(
            "Fit: rank {}'s training source ended after {} batches of epoch {}; it announced {}",
            strategy.rank(), step, epoch, train.num_batches()));
      }
      TP_ASSIGN_OR_RETURN(const nn::Tensor* logits, model.Forward(batch.features, true));
      TP_ASSIGN_OR_RETURN(float loss,
                          nn::SparseSoftmaxCrossEntropy(*logits, batch.labels, &logits_grad));
      TP_RETURN_IF_ERROR(accuracy.Update(*logits, batch.labels));
      sums.loss_sum += static_cast<double>(loss) * static_cast<double>(batch.labels.size());
      // The gradient of this replica's mean loss, averaged across replicas
      // weighted by batch size: the gradient of the global batch's mean loss.
      if (reducer) reducer->BeginStep(static_cast<float>(batch.labels.size()));
      TP_RETURN_IF_ERROR(model.Backward(logits_grad, on_ready));
      if (reducer) TP_RETURN_IF_ERROR(reducer->FinishStep());
      TP_RETURN_IF_ERROR(optimizer.Apply(parameters));
    }
    const double train_seconds = absl::ToDoubleSeconds(clock.Now() - start);
    sums.correct = static_cast<double>(accuracy.correct());
    sums.examples = static_cast<double>(accuracy.total());
    if (validation != nullptr) TP_RETURN_IF_ERROR(Validate(model, *validation, epoch, batch, sums));
    const double epoch_seconds = absl::ToDoubleSeconds(clock.Now() - start);

    const double local[] = {sums.loss_sum,    sums.correct,      sums.examples, sums.val_loss_sum,
                            sums.val_correct, sums.val_examples, train_seconds, epoch_seconds};
    constexpr size_t kValues = std::size(local);
    TP_ASSIGN_OR_RETURN(std::vector<double> all, strategy.GatherFromReplicas(local));
    double total[kValues] = {};
    for (int r = 0; r < strategy.num_replicas(); ++r) {
      for (size_t i = 0; i < kValues; ++i) total[i] += all[r * kValues + i];
    }
    EpochLogs logs;
    logs.epoch = epoch;
    logs.examples = static_cast<int64_t>(total[2]);
    logs.loss = total[2] > 0 ? total[0] / total[2] : 0;
    logs.accuracy = total[2] > 0 ? total[1] / total[2] : 0;
    if (validation != nullptr) {
      logs.val_loss = total[5] > 0 ? total[3] / total[5] : 0;
      logs.val_accuracy = total[5] > 0 ? total[4] / total[5] : 0;
    }
    logs.learning_rate = optimizer.learning_rate();
    // Rank 0's times.
    const double rank0_train_seconds = all[kValues - 2];
    logs.seconds = all[kValues - 1];
    logs.step_seconds = rank0_train_seconds / static_cast<double>(steps);
    // Every replica's examples over rank 0's time: the replicas step together,
    // so one replica's clock measures the job.
    logs.examples_per_second = rank0_train_seconds > 0 ? total[2] / rank0_train_seconds : 0;
    history.epochs.push_back(logs);
    for (Callback* callback : options.callbacks) {
      TP_RETURN_IF_ERROR(callback->OnEpochEnd(context, logs));
    }
    if (options.progress != nullptr && strategy.is_chief()) {
      *options.progress << ProgressLine(logs, options.epochs) << std::endl;
    }
  }
  for (Callback* callback : options.callbacks) {
    TP_RETURN_IF_ERROR(callback->OnTrainEnd(context, history));
  }
  return history;
}

}  // namespace trainpkg::train
