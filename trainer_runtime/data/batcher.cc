#include "trainer_runtime/data/batcher.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace trainpkg::data {

Batcher::Batcher(std::unique_ptr<ElementSource> source, BatchOptions options)
    : source_(std::move(source)), options_(options) {
  if (source_ == nullptr || options_.batch_size < 1) {
    std::fputs("Batcher: need a source and batch_size >= 1\n", stderr);
    std::abort();
  }
  full_shape_.push_back(options_.batch_size);
  const nn::Shape& element = source_->element_shape();
  full_shape_.insert(full_shape_.end(), element.begin(), element.end());
}

absl::StatusOr<bool> Batcher::Next(Batch* batch) {
  if (done_) return false;
  const int64_t b = options_.batch_size;
  batch->features.Resize(full_shape_);
  batch->labels.resize(static_cast<size_t>(b));
  const int64_t width = nn::NumElements(source_->element_shape());
  int64_t filled = 0;
  while (filled < b) {
    absl::StatusOr<int64_t> got = source_->Read(b - filled, batch->features.data() + filled * width,
                                                batch->labels.data() + filled);
    if (!got.ok()) {
      done_ = true;
      return got.status();
    }
    if (*got == 0) break;
    filled += *got;
  }
  if (filled == b) return true;
  done_ = true;
  if (filled == 0 || options_.drop_remainder) return false;
  // The short last batch: Tensor::Resize leaves values unspecified, so keep
  // them aside across it (once per epoch at most).
  const std::vector<float> kept(batch->features.data(), batch->features.data() + filled * width);
  nn::Shape shape = full_shape_;
  shape[0] = filled;
  batch->features.Resize(shape);
  std::copy(kept.begin(), kept.end(), batch->features.data());
  batch->labels.resize(static_cast<size_t>(filled));
  return true;
}

}  // namespace trainpkg::data
