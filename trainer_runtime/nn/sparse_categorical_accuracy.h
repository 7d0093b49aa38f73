// The fraction of examples whose highest logit is at the label (Keras's
// SparseCategoricalAccuracy), accumulated over batches until Reset. A tie
// goes to the lowest index, as argmax does. The running counts are exposed
// so workers can sum them across replicas before taking the ratio.
// Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_SPARSE_CATEGORICAL_ACCURACY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_SPARSE_CATEGORICAL_ACCURACY_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

class SparseCategoricalAccuracy {
 public:
  // Counts one batch of predictions [batch, classes] against `batch` labels.
  // InvalidArgument (nothing counted) for a shape/label count mismatch.
  // Predictions on the CPU or a GPU (then copied to the host to compare).
  absl::Status Update(const Tensor& predictions, std::span<const int32_t> labels);
  // correct() / total(), or 0 before any example.
  double Result() const;
  void Reset();

  int64_t correct() const { return correct_; }
  int64_t total() const { return total_; }

 private:
  int64_t correct_ = 0;
  int64_t total_ = 0;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_SPARSE_CATEGORICAL_ACCURACY_H_
