// cuBLAS loaded with dlopen on first use, so the library is a run-time
// dependency of GPU runs only (the CUDA runtime itself is linked statically).
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_INTERNAL_CUBLAS_LIBRARY_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_INTERNAL_CUBLAS_LIBRARY_H_

#include <cublas_v2.h>

namespace trainpkg::nn::cuda::internal {

struct CublasLibrary {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasSgemm_v2) sgemm = nullptr;
  cublasHandle_t handle = nullptr;
};

// The process-wide library and handle, loaded on the first call. Aborts
// naming the library file and dlerror() when it cannot be loaded, or
// cuBLAS's status when no handle can be created.
const CublasLibrary& Cublas();

}  // namespace trainpkg::nn::cuda::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_INTERNAL_CUBLAS_LIBRARY_H_
