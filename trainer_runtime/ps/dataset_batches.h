// A worker's own batches (TF's per-worker dataset): one shard of a data set,
// reshuffled every epoch (seeded with seed + epoch), endlessly.
//
//   DatasetBatches batches(train.Shard(worker_index, num_workers), 32, /*seed=*/42);
//   const train::Batch& b = *batches.Next();
//
// Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_DATASET_BATCHES_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_DATASET_BATCHES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/train/batch_source.h"

namespace trainpkg::ps {

class DatasetBatches {
 public:
  // REQUIRES: dataset.size() >= 1, batch_size >= 1.
  DatasetBatches(data::Dataset dataset, int64_t batch_size, uint64_t seed);

  // The next batch (the last of an epoch may be smaller); valid until the
  // next call.
  const train::Batch& Next();

 private:
  data::Dataset dataset_;
  int64_t batch_size_;
  uint64_t seed_;
  int64_t epoch_ = -1;
  int64_t position_ = 0;
  std::vector<int64_t> order_;
  train::Batch batch_;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_DATASET_BATCHES_H_
