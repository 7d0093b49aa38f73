#include "trainer_runtime/nn/cpu/blas_threads.h"

#include <cblas.h>

#include "base/check.h"

namespace trainpkg::nn::cpu {

void SetBlasThreads(int threads) {
  TP_CHECK(threads >= 1, "{} BLAS threads", threads);
  openblas_set_num_threads(threads);
}

int BlasThreads() { return openblas_get_num_threads(); }

}  // namespace trainpkg::nn::cpu
