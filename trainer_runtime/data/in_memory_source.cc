#include "trainer_runtime/data/in_memory_source.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "trainer_runtime/data/shuffle.h"

namespace trainpkg::data {

InMemorySource::InMemorySource(std::shared_ptr<const Dataset> dataset, Options options)
    : dataset_(std::move(dataset)), options_(options), epoch_(options.first_epoch) {
  if (dataset_ == nullptr || options_.epochs < -1 || options_.first_epoch < 0) {
    std::fputs("InMemorySource: need a dataset, epochs >= -1 and first_epoch >= 0\n", stderr);
    std::abort();
  }
  StartEpoch();
}

void InMemorySource::StartEpoch() {
  position_ = 0;
  if (options_.shuffle)
    order_ = ShuffledIndices(dataset_->size(), EpochSeed(options_.seed, epoch_));
}

absl::StatusOr<int64_t> InMemorySource::Read(int64_t max_elements, float* features,
                                             int32_t* labels) {
  const int64_t n = dataset_->size();
  const int64_t width = dataset_->element_size();
  const float* src_features = dataset_->features().data();
  const int32_t* src_labels = dataset_->labels().data();
  int64_t written = 0;
  while (written < max_elements) {
    if (n == 0 || (options_.epochs >= 0 && epoch_ >= options_.first_epoch + options_.epochs)) {
      break;
    }
    if (position_ == n) {
      ++epoch_;
      StartEpoch();
      continue;
    }
    const int64_t run = std::min(max_elements - written, n - position_);
    float* dst = features + written * width;
    if (options_.shuffle) {
      for (int64_t k = 0; k < run; ++k) {
        const int64_t i = order_[position_ + k];
        std::memcpy(dst + k * width, src_features + i * width, width * sizeof(float));
        labels[written + k] = src_labels[i];
      }
    } else {
      std::memcpy(dst, src_features + position_ * width, run * width * sizeof(float));
      std::memcpy(labels + written, src_labels + position_, run * sizeof(int32_t));
    }
    position_ += run;
    written += run;
  }
  return written;
}

}  // namespace trainpkg::data
