#include "trainer_runtime/nn/tensor.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::nn {

Tensor::Tensor(Shape shape) : shape_(std::move(shape)) {
  storage_.assign(static_cast<size_t>(NumElements(shape_)), 0.0f);
}

absl::StatusOr<Tensor> Tensor::FromValues(Shape shape, std::vector<float> values) {
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          fmt::format("tensor shape {} has a negative dimension", ShapeToString(shape)));
    }
  }
  if (NumElements(shape) != static_cast<int64_t>(values.size())) {
    return absl::InvalidArgumentError(fmt::format("tensor shape {} needs {} values, got {}",
                                                  ShapeToString(shape), NumElements(shape),
                                                  values.size()));
  }
  Tensor t;
  t.shape_ = std::move(shape);
  t.storage_ = std::move(values);
  return t;
}

int64_t Tensor::dim(int i) const {
  TP_CHECK(i >= 0 && i < rank(), "dimension {} of a {} tensor", i, ShapeToString(shape_));
  return shape_[static_cast<size_t>(i)];
}

std::span<float> Tensor::values() {
  TP_CHECK(device_ == Device::kCpu, "host values of a {} tensor", DeviceName(device_));
  return {storage_.data(), storage_.size()};
}

std::span<const float> Tensor::values() const {
  TP_CHECK(device_ == Device::kCpu, "host values of a {} tensor", DeviceName(device_));
  return {storage_.data(), storage_.size()};
}

void Tensor::Resize(const Shape& shape) {
  if (shape == shape_) return;
  storage_.resize(static_cast<size_t>(NumElements(shape)));
  shape_ = shape;
}

void Tensor::Fill(float value) { std::fill(storage_.begin(), storage_.end(), value); }

void Tensor::CopyFrom(const Tensor& other) {
  TP_CHECK(other.device_ == device_, "copy from {} to {}", DeviceName(other.device_),
           DeviceName(device_));
  Resize(other.shape_);
  std::copy(other.storage_.begin(), other.storage_.end(), storage_.begin());
}

}  // namespace trainpkg::nn
