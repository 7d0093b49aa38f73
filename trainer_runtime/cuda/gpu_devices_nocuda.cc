// ListGpus / SelfTestGpu for builds without nvcc: every call says why.
#include "trainer_runtime/cuda/gpu_devices.h"

namespace trainpkg::runtime {
namespace {

absl::Status NotBuilt() {
  return absl::FailedPreconditionError(
      "this binary was built without CUDA (nvcc was not found at configure time)");
}

}  // namespace

bool BuiltWithCuda() { return false; }

absl::StatusOr<std::vector<GpuInfo>> ListGpus() { return NotBuilt(); }

absl::Status SelfTestGpu(int) { return NotBuilt(); }

}  // namespace trainpkg::runtime
