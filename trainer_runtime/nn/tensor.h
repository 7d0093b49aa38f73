// A dense float32 tensor: a shape, a device and contiguous row-major storage
// that the tensor owns.
//
//   Tensor x({64, 784});                 // zeros on the CPU
//   x.data()[i] = ...;
//   x.Resize({32, 784});                 // keeps the allocation when it fits
//
// Storage is host memory for Device::kCpu, the only device a Tensor can be
// made on today; data() is a device pointer for kCuda tensors, which the CUDA
// build will allocate through its own factory, so code that indexes data()
// on the host checks device() == kCpu first (the nn kernels do).
//
// Copying copies the values. Not thread-safe for concurrent mutation.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_TENSOR_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_TENSOR_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/device.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::nn {

class Tensor {
 public:
  // An empty rank-1 tensor of shape [0] on the CPU.
  Tensor() : shape_{0} {}
  // Zeros of `shape` on the CPU. REQUIRES: every dimension >= 0.
  explicit Tensor(Shape shape);

  // A CPU tensor holding `values` (row-major). InvalidArgument when the count
  // does not match the shape or a dimension is negative.
  static absl::StatusOr<Tensor> FromValues(Shape shape, std::vector<float> values);

  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  // REQUIRES: 0 <= i < rank().
  int64_t dim(int i) const;
  int64_t num_elements() const { return static_cast<int64_t>(storage_.size()); }
  Device device() const { return device_; }

  float* data() { return storage_.data(); }
  const float* data() const { return storage_.data(); }
  // The values on the host. REQUIRES: device() == kCpu.
  std::span<float> values();
  std::span<const float> values() const;

  // Gives the tensor `shape`, reusing the allocation when it is large enough
  // (no allocation once a tensor has held its largest shape). Values after a
  // resize are unspecified. REQUIRES: every dimension >= 0.
  void Resize(const Shape& shape);
  // Sets every value to `value`.
  void Fill(float value);
  // Makes this tensor a copy of `other` (shape and values), reusing storage.
  void CopyFrom(const Tensor& other);

 private:
  Shape shape_;
  Device device_ = Device::kCpu;
  std::vector<float> storage_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_TENSOR_H_
