#include "samples/digits_multiworker/global_batch_source.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "fmt/format.h"
#include "trainer_runtime/data/shuffle.h"

namespace trainpkg::samples {

absl::StatusOr<std::unique_ptr<GlobalBatchSource>> GlobalBatchSource::Create(
    std::shared_ptr<const data::Dataset> dataset, GlobalBatchOptions options) {
  const int64_t g = options.global_batch_size;
  const int64_t world = options.world_size;
  if (g < 1) {
    return absl::InvalidArgumentError(fmt::format("global batch size is {}; must be >= 1", g));
  }
  if (world < 1 || options.rank < 0 || options.rank >= world) {
    return absl::InvalidArgumentError(
        fmt::format("rank {} of world size {}: need 0 <= rank < world size", options.rank, world));
  }
  if (options.training && g < world) {
    return absl::InvalidArgumentError(fmt::format(
        "global batch size {} is smaller than the {} replicas, so some would train on no "
        "examples; use at least {}",
        g, world, world));
  }
  if (options.batch_element_shape.empty()) options.batch_element_shape = dataset->element_shape();
  if (nn::NumElements(options.batch_element_shape) != dataset->element_size()) {
    return absl::InvalidArgumentError(
        fmt::format("batch element shape has {} values but the data set's elements have {}",
                    nn::NumElements(options.batch_element_shape), dataset->element_size()));
  }
  if (options.training && dataset->size() < g) {
    return absl::InvalidArgumentError(fmt::format(
        "the training set has {} elements, fewer than one global batch of {}", dataset->size(), g));
  }
  return std::unique_ptr<GlobalBatchSource>(
      new GlobalBatchSource(std::move(dataset), std::move(options)));
}

GlobalBatchSource::GlobalBatchSource(std::shared_ptr<const data::Dataset> dataset,
                                     GlobalBatchOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  const int64_t n = dataset_->size();
  const int64_t g = options_.global_batch_size;
  global_batches_ = options_.training ? n / g : (n + g - 1) / g;
  order_.resize(static_cast<size_t>(n));
  std::iota(order_.begin(), order_.end(), int64_t{0});
}

std::pair<int64_t, int64_t> GlobalBatchSource::Slice(int64_t b) const {
  const int64_t start = b * options_.global_batch_size;
  const int64_t m = std::min(options_.global_batch_size, dataset_->size() - start);
  const int64_t q = m / options_.world_size;
  const int64_t r = m % options_.world_size;
  // Ranks before r take one extra element each.
  const int64_t begin = start + options_.rank * q + std::min(options_.rank, r);
  return {begin, begin + q + (options_.rank < r ? 1 : 0)};
}

int64_t GlobalBatchSource::num_batches() const {
  int64_t count = 0;
  for (int64_t b = 0; b < global_batches_; ++b) {
    auto [begin, end] = Slice(b);
    if (end > begin) ++count;
  }
  return count;
}

absl::Status GlobalBatchSource::StartEpoch(int epoch) {
  if (options_.training) {
    order_ = data::ShuffledIndices(dataset_->size(), data::EpochSeed(options_.seed, epoch));
  }
  next_batch_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<bool> GlobalBatchSource::Next(train::Batch& batch) {
  while (next_batch_ < global_batches_) {
    auto [begin, end] = Slice(next_batch_++);
    if (end == begin) continue;
    nn::Shape shape{end - begin};
    shape.insert(shape.end(), options_.batch_element_shape.begin(),
                 options_.batch_element_shape.end());
    batch.features.Resize(shape);
    batch.labels.resize(static_cast<size_t>(end - begin));
    const int64_t size = dataset_->element_size();
    float* out = batch.features.data();
    for (int64_t i = begin; i < end; ++i) {
      const int64_t element = order_[static_cast<size_t>(i)];
      std::span<const float> features = dataset_->element(element);
      std::memcpy(out + (i - begin) * size, features.data(), sizeof(float) * features.size());
      batch.labels[static_cast<size_t>(i - begin)] =
          dataset_->labels()[static_cast<size_t>(element)];
    }
    return true;
  }
  return false;
}

}  // namespace trainpkg::samples
