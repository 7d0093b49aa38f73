// Weight initialisers (Keras semantics), drawing from an Rng in row-major
// order so the same seed gives the same weights on every machine.
//   kGlorotUniform: U(-l, l), l = sqrt(6 / (fan_in + fan_out))   (Keras default)
//   kHeUniform:     U(-l, l), l = sqrt(6 / fan_in)
//   kZeros:         0
// For a kernel of shape [..., fan_in_last, fan_out] with receptive field r
// (the product of the leading dimensions, 1 for Dense), fan_in = r * in and
// fan_out = r * out, as Keras computes them for Dense [in, out] and Conv2D
// [kh, kw, in, out] kernels.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_INITIALIZER_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_INITIALIZER_H_

#include "trainer_runtime/nn/rng.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

enum class Initializer { kGlorotUniform, kHeUniform, kZeros };

// Fills `kernel` (a CPU tensor of rank >= 2 for the uniform initialisers, any
// rank for kZeros) from `rng`. Draws num_elements() values for the uniform
// initialisers, none for kZeros.
void Initialize(Initializer initializer, Rng& rng, Tensor& kernel);

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_INITIALIZER_H_
