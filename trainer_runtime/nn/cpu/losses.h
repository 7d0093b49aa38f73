// Loss kernels on contiguous CPU buffers; the CUDA twins take the same
// arguments with device pointers. Inputs are trusted (validated by the
// callers in nn/).
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_CPU_LOSSES_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_CPU_LOSSES_H_

#include <cstdint>

namespace trainpkg::nn::cpu {

// Returns the sum over rows of logsumexp(logits[r]) - logits[r, labels[r]],
// computed with the row maximum subtracted (no overflow). When grad is not
// null, writes grad[r, c] = (softmax(logits[r])[c] - [c == labels[r]]) * scale.
// REQUIRES: 0 <= labels[r] < classes.
double SparseSoftmaxCrossEntropy(int64_t rows, int64_t classes, const float* logits,
                                 const int32_t* labels, float scale, float* grad);

// Returns the sum over i of max(x, 0) - x * z + log1p(exp(-|x|)) with x =
// logits[i], z = targets[i] (sigmoid cross-entropy, stable for any x). When
// grad is not null, writes grad[i] = (sigmoid(x) - z) * scale.
double BinaryCrossEntropyFromLogits(int64_t n, const float* logits, const float* targets,
                                    float scale, float* grad);

}  // namespace trainpkg::nn::cpu

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_CPU_LOSSES_H_
