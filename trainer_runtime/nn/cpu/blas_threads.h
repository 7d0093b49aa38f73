// The number of threads OpenBLAS uses for the CPU kernels. Benchmarks set 1
// to compare with single-threaded PyTorch. Process-wide; set it before
// training starts, not while another thread runs a kernel.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_BLAS_THREADS_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_BLAS_THREADS_H_

namespace trainpkg::nn::cpu {

// REQUIRES: threads >= 1.
void SetBlasThreads(int threads);
int BlasThreads();

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_BLAS_THREADS_H_
