#include "trainer_runtime/nn/sparse_categorical_accuracy.h"

#include <vector>

#include "fmt/format.h"

namespace trainpkg::nn {

absl::Status SparseCategoricalAccuracy::Update(const Tensor& predictions,
                                               std::span<const int32_t> labels) {
  if (predictions.rank() != 2 || predictions.dim(1) < 1 ||
      predictions.dim(0) != static_cast<int64_t>(labels.size())) {
    return absl::InvalidArgumentError(
        fmt::format("accuracy: {} labels for predictions {} (need [batch, classes >= 1])",
                    labels.size(), ShapeToString(predictions.shape())));
  }
  const int64_t classes = predictions.dim(1);
  const float* p = predictions.data();
  std::vector<float> host;  // GPU predictions are read on the host
  if (predictions.device() != Device::kCpu) {
    host.resize(static_cast<size_t>(predictions.num_elements()));
    predictions.CopyToHost(host);
    p = host.data();
  }
  for (size_t r = 0; r < labels.size(); ++r, p += classes) {
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c) {
      if (p[c] > p[best]) best = c;
    }
    if (best == labels[r]) ++correct_;
  }
  total_ += static_cast<int64_t>(labels.size());
  return absl::OkStatus();
}

double SparseCategoricalAccuracy::Result() const {
  return total_ == 0 ? 0.0 : static_cast<double>(correct_) / static_cast<double>(total_);
}

void SparseCategoricalAccuracy::Reset() {
  correct_ = 0;
  total_ = 0;
}

}  // namespace trainpkg::nn
