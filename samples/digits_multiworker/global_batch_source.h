// This replica's slice of every global batch: the BatchSource behind the
// sample's data-parallel equivalence. Every replica holds the whole data set
// and walks the same global batches (same order, same seed). A global batch
// of m = q * world_size + r elements (0 <= r < world_size) is cut into
// consecutive slices, one per rank in rank order: ranks 0..r-1 take q + 1
// elements, the others q (e.g. 64 over 3: 22, 21, 21), so slices differ by
// at most one element. Fit weights each replica's gradient by its slice's
// share of the global batch and sums them, so the result is the gradient of
// the global batch, exactly as a single process training on the global
// batches, whether or not m divides evenly.
//
// Training: shuffled per epoch (ShuffledIndices(size, EpochSeed(seed,
// epoch))), the last partial global batch dropped. Evaluation: data-set
// order, the last partial global batch kept (split the same way; a replica
// whose slice is empty skips it), so the slices of all
// replicas together cover every element once.
//
// Element features are copied into batches of shape [n, ...batch_element_shape]
// (e.g. [64] pixels as [8, 8, 1] images). Not thread-safe.
#ifndef TRAINPKG_SAMPLES_DIGITS_MULTIWORKER_GLOBAL_BATCH_SOURCE_H_
#define TRAINPKG_SAMPLES_DIGITS_MULTIWORKER_GLOBAL_BATCH_SOURCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/nn/shape.h"
#include "trainer_runtime/train/batch_source.h"

namespace trainpkg::samples {

struct GlobalBatchOptions {
  int64_t global_batch_size = 64;
  int64_t rank = 0;
  int64_t world_size = 1;
  bool training = true;           // shuffle and drop the remainder; else neither
  uint64_t seed = 0;              // the shuffle's seed (training only)
  nn::Shape batch_element_shape;  // empty: the data set's element shape
};

class GlobalBatchSource final : public train::BatchSource {
 public:
  // InvalidArgument when the global batch size is < 1 or, for training,
  // smaller than world_size (a replica would get no examples); when rank is
  // outside [0, world_size); when batch_element_shape has another number of
  // values than the data set's elements; or when a training data set is
  // smaller than one global batch.
  static absl::StatusOr<std::unique_ptr<GlobalBatchSource>> Create(
      std::shared_ptr<const data::Dataset> dataset, GlobalBatchOptions options);

  int64_t num_batches() const override;
  absl::Status StartEpoch(int epoch) override;
  absl::StatusOr<bool> Next(train::Batch& batch) override;

 private:
  GlobalBatchSource(std::shared_ptr<const data::Dataset> dataset, GlobalBatchOptions options);

  // This replica's [begin, end) within global batch `b`.
  std::pair<int64_t, int64_t> Slice(int64_t b) const;

  std::shared_ptr<const data::Dataset> dataset_;
  GlobalBatchOptions options_;
  int64_t global_batches_;      // full and (evaluation) partial global batches
  std::vector<int64_t> order_;  // this epoch's element order
  int64_t next_batch_ = 0;
};

}  // namespace trainpkg::samples

#endif  // TRAINPKG_SAMPLES_DIGITS_MULTIWORKER_GLOBAL_BATCH_SOURCE_H_
