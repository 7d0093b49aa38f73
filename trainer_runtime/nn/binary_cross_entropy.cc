#include "trainer_runtime/nn/binary_cross_entropy.h"

#include "absl/status/status.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/internal/kernels.h"

namespace trainpkg::nn {

absl::StatusOr<float> BinaryCrossEntropy(const Tensor& logits, std::span<const float> targets,
                                         Tensor* logits_grad) {
  const int64_t n = logits.num_elements();
  if (n == 0 || static_cast<int64_t>(targets.size()) != n) {
    return absl::InvalidArgumentError(
        fmt::format("binary cross-entropy: {} targets for logits {} (need one per logit, >= 1)",
                    targets.size(), ShapeToString(logits.shape())));
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!(targets[i] >= 0.0f && targets[i] <= 1.0f)) {
      return absl::InvalidArgumentError(fmt::format(
          "binary cross-entropy: target {} at index {} is outside [0, 1]", targets[i], i));
    }
  }
  const float scale = 1.0f / static_cast<float>(n);
  float* grad = nullptr;
  if (logits_grad != nullptr) {
    logits_grad->Resize(logits.shape(), logits.device());
    grad = logits_grad->data();
  }
  const float* target_data = targets.data();
  Tensor device_targets;  // the targets next to GPU logits
  if (logits.device() == Device::kCuda) {
    device_targets.Resize(logits.shape(), Device::kCuda);
    device_targets.CopyFromHost(targets);
    target_data = device_targets.data();
  }
  const double total = kernels::BinaryCrossEntropyFromLogits(logits.device(), n, logits.data(),
                                                             target_data, scale, grad);
  return static_cast<float>(total / static_cast<double>(n));
}

}  // namespace trainpkg::nn
