#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/cpu/losses.h"

namespace trainpkg::nn {

absl::StatusOr<float> SparseSoftmaxCrossEntropy(const Tensor& logits,
                                                std::span<const int32_t> labels,
                                                Tensor* logits_grad) {
  if (logits.rank() != 2 || logits.dim(0) < 1 || logits.dim(1) < 1) {
    return absl::InvalidArgumentError(
        fmt::format("sparse softmax cross-entropy: logits must be [batch, classes], got {}",
                    ShapeToString(logits.shape())));
  }
  const int64_t batch = logits.dim(0);
  const int64_t classes = logits.dim(1);
  if (static_cast<int64_t>(labels.size()) != batch) {
    return absl::InvalidArgumentError(
        fmt::format("sparse softmax cross-entropy: {} labels for logits {}", labels.size(),
                    ShapeToString(logits.shape())));
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= classes) {
      return absl::InvalidArgumentError(
          fmt::format("sparse softmax cross-entropy: label {} at index {} is outside [0, {})",
                      labels[i], i, classes));
    }
  }
  const float scale = 1.0f / static_cast<float>(batch);
  float* grad = nullptr;
  if (logits_grad != nullptr) {
    logits_grad->Resize(logits.shape());
    grad = logits_grad->data();
  }
  const double total =
      cpu::SparseSoftmaxCrossEntropy(batch, classes, logits.data(), labels.data(), scale, grad);
  return static_cast<float>(total / static_cast<double>(batch));
}

}  // namespace trainpkg::nn
