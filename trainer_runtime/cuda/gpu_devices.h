// GPUs visible to this process, and a device self-test.
//
// Built with CUDA (nvcc found at configure time) these query the CUDA runtime;
// built without it they return FailedPrecondition saying so. Honours
// CUDA_VISIBLE_DEVICES as the CUDA runtime does. Thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_CUDA_GPU_DEVICES_H_
#define TRAINPKG_TRAINER_RUNTIME_CUDA_GPU_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::runtime {

struct GpuInfo {
  int index = 0;  // CUDA ordinal within this process
  std::string name;
  uint64_t total_memory_bytes = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
};

// True when this binary was compiled with CUDA support.
bool BuiltWithCuda();

// The visible GPUs; an empty list when CUDA works but none are visible.
// FailedPrecondition when built without CUDA or when the CUDA driver is
// missing or too old (the message carries the runtime's reason).
absl::StatusOr<std::vector<GpuInfo>> ListGpus();

// Runs a small kernel on `device` (an index from ListGpus) that fills and
// reduces a buffer, and checks the result on the host. Proves the device
// executes code, not only that it enumerates. Errors as for ListGpus, plus
// InvalidArgument for a bad index and Internal for a wrong result.
absl::Status SelfTestGpu(int device);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_CUDA_GPU_DEVICES_H_
