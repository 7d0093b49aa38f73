// Launch helpers shared by nn's CUDA kernels: a grid covering n items with
// grid-stride loops, and a launch check that aborts with the kernel's name.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_INTERNAL_LAUNCH_CUH_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_INTERNAL_LAUNCH_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace trainpkg::nn::cuda::internal {

inline constexpr int kThreads = 256;

// Blocks for n items at kThreads each, capped (kernels loop over the rest).
inline int Blocks(int64_t n) {
  return static_cast<int>(std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 65535));
}

// Aborts when the last launch (or an earlier asynchronous error) failed: a
// kernel that cannot run is a broken invariant of the training step.
inline void CheckLaunch(const char* kernel) {
  const cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "nn CUDA kernel %s failed: %s\n", kernel, cudaGetErrorString(error));
  std::abort();
}

// Grid-stride loop index helpers.
__device__ inline int64_t FirstIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t Stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

}  // namespace trainpkg::nn::cuda::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_INTERNAL_LAUNCH_CUH_
