// Where a tensor's storage lives. Every tensor carries its device so kernels
// are chosen per tensor (nn/internal/kernels.h): the CPU kernels (nn/cpu/,
// OpenBLAS) or the CUDA kernels (nn/cuda/, cuBLAS) with the same signatures.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_DEVICE_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_DEVICE_H_

#include <string_view>

namespace trainpkg::nn {

enum class Device { kCpu, kCuda };

// "cpu" or "cuda".
constexpr std::string_view DeviceName(Device device) {
  return device == Device::kCpu ? "cpu" : "cuda";
}

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_DEVICE_H_
