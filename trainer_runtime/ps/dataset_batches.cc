#include "trainer_runtime/ps/dataset_batches.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/check.h"
#include "trainer_runtime/data/shuffle.h"

namespace trainpkg::ps {

DatasetBatches::DatasetBatches(data::Dataset dataset, int64_t batch_size, uint64_t seed)
    : dataset_(std::move(dataset)), batch_size_(batch_size), seed_(seed) {
  TP_CHECK(dataset_.size() >= 1 && batch_size_ >= 1, "{} elements, batch size {}", dataset_.size(),
           batch_size_);
  // At the end, so the first Next() starts epoch 1 with its own shuffle.
  position_ = dataset_.size();
}

const train::Batch& DatasetBatches::Next() {
  if (position_ >= dataset_.size()) {
    ++epoch_;
    // A new order each epoch, derived from the seed and the epoch number, so a
    // run with the same seed sees the same batches.
    order_ = data::ShuffledIndices(dataset_.size(), data::EpochSeed(seed_, epoch_));
    position_ = 0;
  }
  const int64_t n = std::min(batch_size_, dataset_.size() - position_);
  nn::Shape shape{n};
  shape.insert(shape.end(), dataset_.element_shape().begin(), dataset_.element_shape().end());
  batch_.features.Resize(shape);
  batch_.labels.resize(static_cast<size_t>(n));
  const int64_t size = dataset_.element_size();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = order_[static_cast<size_t>(position_ + i)];
    std::memcpy(batch_.features.data() + i * size, dataset_.element(e).data(),
                sizeof(float) * static_cast<size_t>(size));
    batch_.labels[static_cast<size_t>(i)] = dataset_.labels()[static_cast<size_t>(e)];
  }
  position_ += n;
  return batch_;
}

}  // namespace trainpkg::ps
