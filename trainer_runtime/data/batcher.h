// Groups the elements of an ElementSource into batches.
//
//   Batcher batcher(std::move(source), {.batch_size = 64, .drop_remainder = true});
//   Batch batch;
//   while (true) {
//     TP_ASSIGN_OR_RETURN(bool got, batcher.Next(&batch));
//     if (!got) break;
//     model.Forward(batch.features) ...   // features [b, ...element_shape], labels [b]
//   }
//
// Next fills the caller's Batch in place, so a Batch reused across calls
// allocates only on its first call: one ElementSource::Read per batch, no
// per-element calls. The last batch has fewer than batch_size elements
// unless drop_remainder is set, in which case it is dropped (as tf.data's
// batch(drop_remainder=True), which data-parallel training needs so every
// worker's batch has the same size). Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_BATCHER_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_BATCHER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/element_source.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::data {

struct Batch {
  nn::Tensor features;          // [size(), ...element_shape]
  std::vector<int32_t> labels;  // [size()]
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

struct BatchOptions {
  int64_t batch_size = 32;
  bool drop_remainder = false;
};

class Batcher {
 public:
  // REQUIRES: source != nullptr, options.batch_size >= 1.
  Batcher(std::unique_ptr<ElementSource> source, BatchOptions options);

  // Fills *batch with the next batch and returns true, or returns false at
  // the end of the data (then and on every later call). Errors are the
  // source's. REQUIRES: batch != nullptr.
  absl::StatusOr<bool> Next(Batch* batch);

  const nn::Shape& element_shape() const { return source_->element_shape(); }
  const BatchOptions& options() const { return options_; }

 private:
  std::unique_ptr<ElementSource> source_;
  BatchOptions options_;
  nn::Shape full_shape_;  // [batch_size, ...element_shape]
  bool done_ = false;
};

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_BATCHER_H_
