// ListGpus / SelfTestGpu on top of the CUDA runtime (built when nvcc exists).
#include <string>

#include "absl/strings/str_cat.h"
#include "trainer_runtime/cuda/gpu_devices.h"
#include "trainer_runtime/cuda/internal/cuda_probe.h"

namespace trainpkg::runtime {

bool BuiltWithCuda() { return true; }

absl::StatusOr<std::vector<GpuInfo>> ListGpus() {
  std::vector<cuda_internal::DeviceProps> props;
  std::string error;
  if (!cuda_internal::QueryDevices(&props, &error)) {
    return absl::FailedPreconditionError(absl::StrCat("CUDA is not usable here: ", error));
  }
  std::vector<GpuInfo> gpus;
  for (size_t i = 0; i < props.size(); ++i) {
    gpus.push_back(GpuInfo{static_cast<int>(i), props[i].name, props[i].total_memory_bytes,
                           props[i].major, props[i].minor});
  }
  return gpus;
}

absl::Status SelfTestGpu(int device) {
  auto gpus = ListGpus();
  if (!gpus.ok()) return gpus.status();
  if (device < 0 || device >= static_cast<int>(gpus->size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU index ", device, " out of range; ", gpus->size(), " visible"));
  }
  constexpr int kN = 1 << 20;
  double expected = 0;
  for (int i = 0; i < kN; ++i) expected += i % 7;
  double sum = 0;
  std::string error;
  if (!cuda_internal::FillAndSum(device, kN, &sum, &error)) {
    return absl::InternalError(absl::StrCat("GPU ", device, " self-test failed: ", error));
  }
  if (sum != expected) {
    return absl::InternalError(
        absl::StrCat("GPU ", device, " self-test computed ", sum, ", expected ", expected));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::runtime
