// A trainable variable and its gradient. Both are contiguous tensors of the
// same shape, so a gradient can be handed to an allreduce (or copied into a
// bucket) as one block of num_elements() floats.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_PARAMETER_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_PARAMETER_H_

#include <string>
#include <utility>

#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

struct Parameter {
  Parameter(std::string parameter_name, const Shape& shape)
      : name(std::move(parameter_name)), value(shape), grad(shape) {}

  // "kernel" or "bias" inside a layer; "<layer>/<name>" once the layer is in
  // a Sequential.
  std::string name;
  Tensor value;
  // Written (not accumulated) by each Backward.
  Tensor grad;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_PARAMETER_H_
