// Softmax cross-entropy from logits with integer labels (Keras's
// SparseCategoricalCrossentropy(from_logits=True), PyTorch's CrossEntropyLoss),
// averaged over the batch. Numerically stable for any finite logits.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_SPARSE_SOFTMAX_CROSS_ENTROPY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_SPARSE_SOFTMAX_CROSS_ENTROPY_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

// Returns mean over rows of -log(softmax(logits[r])[labels[r]]) for logits
// [batch, classes]. When logits_grad is not null it is resized to logits'
// shape and receives d(loss)/d(logits) = (softmax - one_hot) / batch.
// InvalidArgument when logits is not [batch >= 1, classes >= 1], labels has
// not `batch` entries, or a label is outside [0, classes) (naming its index).
// Logits on the CPU or a GPU (labels are host memory, copied over; the
// gradient is written on the logits' device).
absl::StatusOr<float> SparseSoftmaxCrossEntropy(const Tensor& logits,
                                                std::span<const int32_t> labels,
                                                Tensor* logits_grad = nullptr);

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_SPARSE_SOFTMAX_CROSS_ENTROPY_H_
