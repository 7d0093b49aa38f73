// Loss kernels on the GPU; the sums come back to the host in double.
// The CUDA twins of nn/cpu/losses.h: the same arguments and results, with
// device pointers, run on the current device's default stream (host results
// wait for the kernels). A launch failure aborts naming the kernel.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CUDA_LOSSES_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CUDA_LOSSES_H_

#include <cstdint>

namespace trainpkg::nn::cuda {

// labels is a device array of int32.
double SparseSoftmaxCrossEntropy(int64_t rows, int64_t classes, const float* logits,
                                 const int32_t* labels, float scale, float* grad);
double BinaryCrossEntropyFromLogits(int64_t n, const float* logits, const float* targets,
                                    float scale, float* grad);

}  // namespace trainpkg::nn::cuda

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CUDA_LOSSES_H_
