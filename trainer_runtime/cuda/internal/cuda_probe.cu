#include <cuda_runtime.h>

#include "trainer_runtime/cuda/internal/cuda_probe.h"

namespace trainpkg::runtime::cuda_internal {
namespace {

__global__ void FillKernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i % 7);
}

// One block per 256 elements; each block reduces in shared memory and adds
// its partial sum atomically. Small on purpose: it checks a device works.
__global__ void SumKernel(const float* data, int n, double* out) {
  __shared__ double partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? static_cast<double>(data[i]) : 0.0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

bool Check(cudaError_t err, const char* what, std::string* error) {
  if (err == cudaSuccess) return true;
  *error = std::string(what) + ": " + cudaGetErrorString(err);
  return false;
}

}  // namespace

bool QueryDevices(std::vector<DeviceProps>* devices, std::string* error) {
  int count = 0;
  if (!Check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", error)) return false;
  devices->clear();
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (!Check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties", error)) return false;
    devices->push_back(DeviceProps{prop.name, static_cast<uint64_t>(prop.totalGlobalMem),
                                   prop.major, prop.minor});
  }
  return true;
}

bool FillAndSum(int device, int n, double* sum, std::string* error) {
  if (!Check(cudaSetDevice(device), "cudaSetDevice", error)) return false;
  float* data = nullptr;
  double* out = nullptr;
  bool ok = Check(cudaMalloc(&data, sizeof(float) * n), "cudaMalloc", error) &&
            Check(cudaMalloc(&out, sizeof(double)), "cudaMalloc", error) &&
            Check(cudaMemset(out, 0, sizeof(double)), "cudaMemset", error);
  if (ok) {
    int blocks = (n + 255) / 256;
    FillKernel<<<blocks, 256>>>(data, n);
    SumKernel<<<blocks, 256>>>(data, n, out);
    ok = Check(cudaGetLastError(), "kernel launch", error) &&
         Check(cudaMemcpy(sum, out, sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy", error);
  }
  if (data != nullptr) cudaFree(data);
  if (out != nullptr) cudaFree(out);
  return ok;
}

}  // namespace trainpkg::runtime::cuda_internal
