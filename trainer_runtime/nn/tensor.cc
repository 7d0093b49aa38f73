#include "trainer_runtime/nn/tensor.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "base/check.h"
#include "base/status_context.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/cuda/device_memory.h"

namespace trainpkg::nn {
namespace {

absl::Status CheckShape(const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          fmt::format("tensor shape {} has a negative dimension", ShapeToString(shape)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Tensor::Tensor(Shape shape) : shape_(std::move(shape)), num_elements_(NumElements(shape_)) {
  storage_.assign(static_cast<size_t>(num_elements_), 0.0f);
}

Tensor::~Tensor() { ReleaseDevice(); }

Tensor::Tensor(const Tensor& other) : Tensor() { *this = other; }

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  Resize(other.shape_, other.device_);
  CopyFrom(other);
  return *this;
}

Tensor::Tensor(Tensor&& other) noexcept : Tensor() { *this = std::move(other); }

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  std::swap(shape_, other.shape_);
  std::swap(device_, other.device_);
  std::swap(num_elements_, other.num_elements_);
  std::swap(storage_, other.storage_);
  std::swap(device_data_, other.device_data_);
  std::swap(device_capacity_, other.device_capacity_);
  return *this;
}

void Tensor::ReleaseDevice() {
  cuda::Free(device_data_);
  device_data_ = nullptr;
  device_capacity_ = 0;
}

absl::StatusOr<Tensor> Tensor::FromValues(Shape shape, std::vector<float> values) {
  if (absl::Status ok = CheckShape(shape); !ok.ok()) return ok;
  if (NumElements(shape) != static_cast<int64_t>(values.size())) {
    return absl::InvalidArgumentError(fmt::format("tensor shape {} needs {} values, got {}",
                                                  ShapeToString(shape), NumElements(shape),
                                                  values.size()));
  }
  Tensor t;
  t.shape_ = std::move(shape);
  t.num_elements_ = static_cast<int64_t>(values.size());
  t.storage_ = std::move(values);
  return t;
}

absl::StatusOr<Tensor> Tensor::Zeros(Shape shape, Device device) {
  if (absl::Status ok = CheckShape(shape); !ok.ok()) return ok;
  if (device == Device::kCpu) return Tensor(std::move(shape));
  const int64_t n = NumElements(shape);
  absl::StatusOr<void*> data = cuda::Allocate(static_cast<size_t>(n) * sizeof(float));
  if (!data.ok()) {
    return base::WithContext(data.status(),
                             fmt::format("a {} tensor on the GPU", ShapeToString(shape)));
  }
  Tensor t;
  t.shape_ = std::move(shape);
  t.device_ = Device::kCuda;
  t.num_elements_ = n;
  t.device_data_ = static_cast<float*>(*data);
  t.device_capacity_ = n;
  cuda::FillFloats(n, 0.0f, t.device_data_);
  return t;
}

absl::StatusOr<Tensor> Tensor::To(Device device) const {
  if (device == device_) return *this;
  absl::StatusOr<Tensor> copy = Zeros(shape_, device);
  if (!copy.ok()) return copy;
  if (device_ == Device::kCpu) {
    copy->CopyFromHost(values());
  } else {
    CopyToHost(copy->values());
  }
  return copy;
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

void Tensor::Resize(const Shape& shape) { Resize(shape, device_); }

void Tensor::Resize(const Shape& shape, Device device) {
  if (shape == shape_ && device == device_) return;
  const int64_t n = NumElements(shape);
  if (device != device_) {
    if (device == Device::kCpu) ReleaseDevice();
    if (device == Device::kCuda) storage_ = {};
    device_ = device;
  }
  if (device_ == Device::kCpu) {
    storage_.resize(static_cast<size_t>(n));
  } else if (n > device_capacity_) {
    absl::StatusOr<void*> data = cuda::Allocate(static_cast<size_t>(n) * sizeof(float));
    TP_CHECK(data.ok(), "resizing a GPU tensor to {}: {}", ShapeToString(shape),
             std::string(data.status().message()));
    ReleaseDevice();
    device_data_ = static_cast<float*>(*data);
    device_capacity_ = n;
  }
  shape_ = shape;
  num_elements_ = n;
}

void Tensor::Fill(float value) {
  if (device_ == Device::kCpu) {
    std::fill(storage_.begin(), storage_.end(), value);
  } else {
    cuda::FillFloats(num_elements_, value, device_data_);
  }
}

void Tensor::CopyFrom(const Tensor& other) {
  TP_CHECK(other.device_ == device_, "copy from {} to {}", DeviceName(other.device_),
           DeviceName(device_));
  Resize(other.shape_);
  if (device_ == Device::kCpu) {
    std::copy(other.storage_.begin(), other.storage_.end(), storage_.begin());
  } else {
    cuda::Copy(device_data_, other.device_data_,
               static_cast<size_t>(num_elements_) * sizeof(float));
  }
}

void Tensor::CopyFromHost(std::span<const float> values) {
  TP_CHECK(static_cast<int64_t>(values.size()) == num_elements_, "{} values into a {} tensor",
           values.size(), ShapeToString(shape_));
  if (device_ == Device::kCpu) {
    std::copy(values.begin(), values.end(), storage_.begin());
  } else {
    cuda::Copy(device_data_, values.data(), values.size() * sizeof(float));
  }
}

void Tensor::CopyToHost(std::span<float> values) const {
  TP_CHECK(static_cast<int64_t>(values.size()) == num_elements_, "{} values from a {} tensor",
           values.size(), ShapeToString(shape_));
  if (device_ == Device::kCpu) {
    std::copy(storage_.begin(), storage_.end(), values.begin());
  } else {
    cuda::Copy(values.data(), device_data_, values.size() * sizeof(float));
  }
}

}  // namespace trainpkg::nn
