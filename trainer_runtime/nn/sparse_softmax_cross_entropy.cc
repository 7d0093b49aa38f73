#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/cuda/device_array.h"
#include "trainer_runtime/nn/cuda/device_memory.h"
#include "trainer_runtime/nn/internal/kernels.h"

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
    logits_grad->Resize(logits.shape(), logits.device());
    grad = logits_grad->data();
  }
  const int32_t* label_data = labels.data();
  cuda::DeviceArray<int32_t> device_labels;  // the labels next to GPU logits
  if (logits.device() == Device::kCuda) {
    label_data = device_labels.Reserve(batch);
    cuda::Copy(device_labels.data(), labels.data(), labels.size() * sizeof(int32_t));
  }
  const double total = kernels::SparseSoftmaxCrossEntropy(logits.device(), batch, classes,
                                                          logits.data(), label_data, scale, grad);
  return static_cast<float>(total / static_cast<double>(batch));
}

}  // namespace trainpkg::nn
