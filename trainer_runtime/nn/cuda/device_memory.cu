#include <cuda_runtime.h>

#include <string>

#include "fmt/format.h"
#include "trainer_runtime/nn/cuda/device_memory.h"
#include "trainer_runtime/nn/cuda/internal/launch.cuh"

namespace trainpkg::nn::cuda {
namespace {

__global__ void FillKernel(int64_t n, float value, float* data) {
  for (int64_t i = internal::FirstIndex(); i < n; i += internal::Stride()) data[i] = value;
}

}  // namespace

absl::Status CheckDevice() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    return absl::FailedPreconditionError(
        fmt::format("CUDA is not usable here: {}", cudaGetErrorString(error)));
  }
  if (count == 0) return absl::FailedPreconditionError("CUDA works but no GPU is visible");
  return absl::OkStatus();
}

absl::StatusOr<void*> Allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (absl::Status device = CheckDevice(); !device.ok()) return device;
  void* data = nullptr;
  const cudaError_t error = cudaMalloc(&data, bytes);
  if (error != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free allocation error
    return absl::ResourceExhaustedError(
        fmt::format("cudaMalloc of {} bytes failed: {}", bytes, cudaGetErrorString(error)));
  }
  return data;
}

void Free(void* data) {
  if (data != nullptr) cudaFree(data);
}

void Copy(void* destination, const void* source, size_t bytes) {
  if (bytes == 0) return;
  const cudaError_t error = cudaMemcpy(destination, source, bytes, cudaMemcpyDefault);
  if (error != cudaSuccess) {
    std::fprintf(stderr, "nn CUDA copy of %zu bytes failed: %s\n", bytes,
                 cudaGetErrorString(error));
    std::abort();
  }
}

void FillFloats(int64_t n, float value, float* data) {
  if (n == 0) return;
  FillKernel<<<internal::Blocks(n), internal::kThreads>>>(n, value, data);
  internal::CheckLaunch("FillFloats");
}

}  // namespace trainpkg::nn::cuda
