// A dense float32 tensor: a shape, a device and contiguous row-major storage
// that the tensor owns.
//
//   Tensor x({64, 784});                 // zeros on the CPU
//   x.data()[i] = ...;
//   x.Resize({32, 784});                 // keeps the allocation when it fits
//   auto gpu = x.To(Device::kCuda);      // a copy in GPU memory (or an error)
//
// Storage is host memory for Device::kCpu and memory of the current CUDA
// device for kCuda (nn/cuda/device_memory.h); data() is then a device
// pointer, which the nn kernels for that device take, so code that indexes
// data() on the host checks device() == kCpu first (values() does).
// A kCuda tensor exists only in a build with CUDA and on a machine with a
// GPU: Zeros and To say FailedPrecondition otherwise.
//
// Copying copies the values on the same device (a GPU tensor's copy aborts
// when GPU memory is full). Not thread-safe for
// concurrent mutation.
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
  ~Tensor();
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;

  // Zeros of `shape` on `device`. InvalidArgument for a negative dimension;
  // for kCuda, FailedPrecondition when this build has no CUDA or no GPU is
  // usable (the reason in the message) and ResourceExhausted when the GPU's
  // memory is full.
  static absl::StatusOr<Tensor> Zeros(Shape shape, Device device);

  // A CPU tensor holding `values` (row-major). InvalidArgument when the count
  // does not match the shape or a dimension is negative.
  static absl::StatusOr<Tensor> FromValues(Shape shape, std::vector<float> values);

  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  // REQUIRES: 0 <= i < rank().
  int64_t dim(int i) const;
  int64_t num_elements() const { return num_elements_; }
  Device device() const { return device_; }

  // Host memory for kCpu, device memory for kCuda.
  float* data() { return device_ == Device::kCpu ? storage_.data() : device_data_; }
  const float* data() const { return device_ == Device::kCpu ? storage_.data() : device_data_; }
  // The values on the host. REQUIRES: device() == kCpu.
  std::span<float> values();
  std::span<const float> values() const;

  // A copy of this tensor on `device` (the same device too). Errors as Zeros.
  absl::StatusOr<Tensor> To(Device device) const;

  // Gives the tensor `shape`, reusing the allocation when it is large enough
  // (no allocation once a tensor has held its largest shape). Values after a
  // resize are unspecified. REQUIRES: every dimension >= 0; for a kCuda
  // tensor, device memory for it (aborts otherwise).
  void Resize(const Shape& shape);
  // Resize, moving the storage to `device` first when it is elsewhere (then
  // values are unspecified too). Layers size their scratch this way on their
  // input's device. REQUIRES: as Resize, and a tensor of `device` can exist
  // (some tensor of that device was made with Zeros or To).
  void Resize(const Shape& shape, Device device);
  // Sets every value to `value`.
  void Fill(float value);
  // Makes this tensor a copy of `other` (shape and values), reusing storage.
  // REQUIRES: both on the same device.
  void CopyFrom(const Tensor& other);
  // Copies the values from or to host memory of num_elements() floats,
  // whatever the tensor's device.
  void CopyFromHost(std::span<const float> values);
  void CopyToHost(std::span<float> values) const;

 private:
  void ReleaseDevice();

  Shape shape_;
  Device device_ = Device::kCpu;
  int64_t num_elements_ = 0;
  std::vector<float> storage_;    // kCpu
  float* device_data_ = nullptr;  // kCuda
  int64_t device_capacity_ = 0;   // floats at device_data_
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_TENSOR_H_
