// A growable device array of T for kernel scratch (argmax indices, labels,
// per-row losses): Reserve keeps the allocation once it is large enough.
// Move-only. Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_DEVICE_ARRAY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_DEVICE_ARRAY_H_

#include <cstdint>
#include <string>
#include <utility>

#include "base/check.h"
#include "trainer_runtime/nn/cuda/device_memory.h"

namespace trainpkg::nn::cuda {

template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { Free(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }

  // Room for n values (contents unspecified). Aborts when the device cannot
  // provide it: callers hold device tensors, so a device exists.
  T* Reserve(int64_t n) {
    if (n > capacity_) {
      auto data = Allocate(static_cast<size_t>(n) * sizeof(T));
      TP_CHECK(data.ok(), "device scratch of {} values: {}", n,
               std::string(data.status().message()));
      Free(data_);
      data_ = static_cast<T*>(*data);
      capacity_ = n;
    }
    return data_;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  T* data_ = nullptr;
  int64_t capacity_ = 0;
};

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_DEVICE_ARRAY_H_
