// The build without CUDA: no device memory can be allocated, so no device
// pointer exists for the other functions to receive.
#include "base/check.h"
#include "trainer_runtime/nn/cuda/device_memory.h"

namespace trainpkg::nn::cuda {

absl::Status CheckDevice() {
  return absl::FailedPreconditionError(
      "this build of trainpkg is without CUDA (nvcc was not found)");
}

absl::StatusOr<void*> Allocate(size_t bytes) {
  if (bytes == 0) return nullptr;
  return CheckDevice();
}

void Free(void* data) { TP_CHECK(data == nullptr, "freeing device memory without CUDA"); }

void Copy(void* /*destination*/, const void* /*source*/, size_t bytes) {
  TP_CHECK(bytes == 0, "a device copy in a build without CUDA");
}

void FillFloats(int64_t n, float /*value*/, float* /*data*/) {
  TP_CHECK(n == 0, "a device fill in a build without CUDA");
}

}  // namespace trainpkg::nn::cuda
