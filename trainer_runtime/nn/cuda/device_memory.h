// Memory on the current CUDA device for nn's tensors and scratch buffers.
//
// Built with CUDA (nvcc found at configure time) these use the CUDA runtime;
// built without it Allocate returns FailedPrecondition, so no device pointer
// ever exists and the other functions are never reached. Thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_DEVICE_MEMORY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_DEVICE_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::nn::cuda {

// OK when a CUDA device can hold tensors; FailedPrecondition saying why not
// ("built without CUDA", or the runtime's reason: no device, driver too old).
absl::Status CheckDevice();

// `bytes` of uninitialised device memory (bytes == 0 gives nullptr).
// CheckDevice's errors, or ResourceExhausted naming the size.
absl::StatusOr<void*> Allocate(size_t bytes);
// Frees what Allocate returned; nullptr is ignored.
void Free(void* data);
// Copies `bytes` between any two of host and device memory (the pointers
// tell which), finishing queued kernels first. Aborts on a CUDA error.
void Copy(void* destination, const void* source, size_t bytes);
// data[0..n) = value on the device.
void FillFloats(int64_t n, float value, float* data);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_DEVICE_MEMORY_H_
