// What Fit reads training and validation data from: a sequence of batches,
// restarted at each epoch. trainer_runtime/data's datasets implement it (or
// are adapted to it); tests use in-memory sources.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_BATCH_SOURCE_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_BATCH_SOURCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::train {

// One batch of examples: features [batch, ...] and one class label each.
struct Batch {
  nn::Tensor features;
  std::vector<int32_t> labels;
};

// This replica's share of a data set, in batches. Not thread-safe.
class BatchSource {
 public:
  virtual ~BatchSource() = default;

  // The number of batches one epoch yields on this replica.
  virtual int64_t num_batches() const = 0;
  // Starts epoch `epoch` (0-based). The order of the batches must be a
  // function of the epoch alone (e.g. a shuffle seeded with seed + epoch),
  // so a run resumed from a checkpoint sees what an uninterrupted run saw.
  virtual absl::Status StartEpoch(int epoch) = 0;
  // Fills `batch` with the next batch of the epoch (its buffers are reused);
  // false when the epoch has no more batches.
  virtual absl::StatusOr<bool> Next(Batch& batch) = 0;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_BATCH_SOURCE_H_
