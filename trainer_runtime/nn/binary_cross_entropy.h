// Binary cross-entropy from logits (Keras's BinaryCrossentropy(from_logits=
// True), PyTorch's BCEWithLogitsLoss), averaged over every element.
// Numerically stable for any finite logits.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_BINARY_CROSS_ENTROPY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_BINARY_CROSS_ENTROPY_H_

#include <span>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

// Returns the mean over elements of max(x, 0) - x z + log(1 + exp(-|x|))
// for logits x (any shape with at least one element, typically [batch, 1])
// and targets z (one per logit, in [0, 1]). When logits_grad is not null it
// is resized to logits' shape and receives (sigmoid(x) - z) / num_elements.
// InvalidArgument for an empty input, a count mismatch or a target outside
// [0, 1] (naming its index). Logits on the CPU or a GPU (targets are host
// memory, copied over; the gradient is written on the logits' device).
absl::StatusOr<float> BinaryCrossEntropy(const Tensor& logits, std::span<const float> targets,
                                         Tensor* logits_grad = nullptr);

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_BINARY_CROSS_ENTROPY_H_
