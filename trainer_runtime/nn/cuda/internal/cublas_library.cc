#include "trainer_runtime/nn/cuda/internal/cublas_library.h"

#include <dlfcn.h>

#include <string>

#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::nn::cuda::internal {
namespace {

template <typename Fn>
Fn Symbol(void* library, const char* name, const std::string& file) {
  void* symbol = dlsym(library, name);
  TP_CHECK(symbol != nullptr, "{} has no {}: {}", file, name, dlerror());
  return reinterpret_cast<Fn>(symbol);
}

CublasLibrary Load() {
  const std::string file = fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  TP_CHECK(library != nullptr, "GPU matrix multiply needs cuBLAS: cannot load {}: {}", file,
           dlerror());
  CublasLibrary cublas;
  cublas.create = Symbol<decltype(cublas.create)>(library, "cublasCreate_v2", file);
  cublas.sgemm = Symbol<decltype(cublas.sgemm)>(library, "cublasSgemm_v2", file);
  const cublasStatus_t status = cublas.create(&cublas.handle);
  TP_CHECK(status == CUBLAS_STATUS_SUCCESS, "cublasCreate failed with status {}",
           static_cast<int>(status));
  return cublas;
}

}  // namespace

const CublasLibrary& Cublas() {
  static const CublasLibrary* const cublas = new CublasLibrary(Load());
  return *cublas;
}

}  // namespace trainpkg::nn::cuda::internal
