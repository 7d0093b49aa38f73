// The training loop (Keras's Model.fit) for a classifier trained with sparse
// softmax cross-entropy, on one replica or many with the same code:
//
//   auto strategy = MakeStrategy(*info, {});
//   FitOptions options;
//   options.epochs = 30;
//   options.callbacks = {backup.get(), tensorboard.get()};
//   options.progress = &std::cout;   // written on the chief only
//   auto history = Fit(**strategy, model, *optimizer, train, &validation, options);
//
// Per run: callbacks' OnTrainBegin (a backup may restore and move
// initial_epoch), then rank 0's parameters are broadcast. Per epoch, on
// every replica: train.StartEpoch(epoch), then steps_per_epoch steps of
// forward, loss (the mean over the replica's batch), backward of that loss
// scaled by (local batch / global batch) — the per-example loss divided by
// the global batch size, as TF's compute_average_loss(per_example_loss,
// global_batch_size) — with the gradients summed across replicas in buckets
// as they become ready, and the optimizer's step. So every replica applies
// the gradient of the mean loss over the global batch (the sum of this
// step's replica batches, gathered before backward), whether or not the
// replicas' batches have the same size.
// Then validation over this replica's validation batches, the metrics' sums
// added across replicas, OnEpochEnd, and a progress line on the chief:
//   epoch 3/30 - loss 0.2041 - accuracy 0.9420 - val_loss 0.1893 - val_accuracy 0.9472 - lr 0.001 -
//   0.071s - 20321 examples/s
//
// Every replica runs the same number of steps: steps_per_epoch when set,
// else the fewest batches any replica's source has (extra batches on other
// replicas are left unread, so no replica waits in an allreduce forever).
//
// Errors: InvalidArgument for bad options; FailedPrecondition when resumed
// replicas disagree on the epoch or a source yields fewer batches than it
// announced; the model's and loss's errors for a batch that does not fit
// the model; the strategy's (Aborted naming a failed rank); a callback's.
// After an error the model is in an unspecified state.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_FIT_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_FIT_H_

#include <cstdint>
#include <ostream>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "trainer_runtime/nn/optimizer.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/train/batch_source.h"
#include "trainer_runtime/train/callback.h"
#include "trainer_runtime/train/history.h"
#include "trainer_runtime/train/strategy.h"

namespace trainpkg::train {

struct FitOptions {
  int epochs = 1;
  // Steps per epoch on every replica; 0: the smallest num_batches() of the
  // replicas' training sources.
  int64_t steps_per_epoch = 0;
  // Horovod's gradual warmup from lr / replicas to lr over this many epochs
  // (learning_rate_warmup.h); 0: none. lr is the optimizer's rate when Fit
  // starts.
  double warmup_epochs = 0;
  // Called in order; not owned.
  std::vector<Callback*> callbacks;
  // Where the chief writes its progress line per epoch; nullptr: nowhere.
  std::ostream* progress = nullptr;
  // The clock epochs are timed with; not owned. nullptr: base::RealClock().
  base::Clock* clock = nullptr;
};

// `validation` may be null. REQUIRES: the sources yield features the model
// takes and labels in [0, classes).
absl::StatusOr<History> Fit(Strategy& strategy, nn::Sequential& model, nn::Optimizer& optimizer,
                            BatchSource& train, BatchSource* validation, const FitOptions& options);

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_FIT_H_
