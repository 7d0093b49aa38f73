// Plain C++ interface to the CUDA translation unit (compiled by nvcc, which
// does not see abseil). Each function returns true on success and otherwise
// fills `error` with the CUDA runtime's message.
#ifndef TRAINPKG_TRAINER_RUNTIME_CUDA_INTERNAL_CUDA_PROBE_H_
#define TRAINPKG_TRAINER_RUNTIME_CUDA_INTERNAL_CUDA_PROBE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace trainpkg::runtime::cuda_internal {

struct DeviceProps {
  std::string name;
  uint64_t total_memory_bytes = 0;
  int major = 0;
  int minor = 0;
};

bool QueryDevices(std::vector<DeviceProps>* devices, std::string* error);

// Fills n floats with (i % 7) on `device`, sums them there, copies the sum
// back into *sum.
bool FillAndSum(int device, int n, double* sum, std::string* error);

}  // namespace trainpkg::runtime::cuda_internal

#endif  // TRAINPKG_TRAINER_RUNTIME_CUDA_INTERNAL_CUDA_PROBE_H_
