// The interface every layer implements. A layer maps a batch (dimension 0)
// to a batch, owns its parameters and any scratch it needs between Forward
// and Backward, and reuses its buffers from step to step.
//
// Calls are per batch, never per element. Not thread-safe: one layer object
// serves one training loop.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_LAYER_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_LAYER_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/nn/rng.h"
#include "trainer_runtime/nn/shape.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

class Layer {
 public:
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  // Keras's class name in snake case ("dense", "conv2d", ...), used to name
  // unnamed layers.
  virtual std::string_view kind() const = 0;
  // The layer's name ("" until a Sequential names an unnamed layer).
  const std::string& name() const { return name_; }

  // The output shape for an input of `input_shape`. InvalidArgument naming
  // the layer and both shapes when this layer cannot take such an input.
  virtual absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const = 0;

  // Computes `output` from `input`; `training` turns on training-only
  // behaviour (dropout). Keeps what Backward needs.
  // REQUIRES: OutputShape(input.shape()) is ok and equals output->shape();
  // both tensors on the device of the layer's parameters (MoveParametersTo),
  // whose kernels then run (nn/cpu/ or nn/cuda/).
  virtual void Forward(const Tensor& input, bool training, Tensor* output) = 0;

  // Given d(loss)/d(output), writes every parameter's gradient (overwriting)
  // and, when input_grad is not null, d(loss)/d(input) into it.
  // REQUIRES: the last Forward was called with `input` and wrote `output`;
  // output_grad has output's shape; input_grad, if set, has input's shape.
  virtual void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                        Tensor* input_grad) = 0;

  // The layer's parameters in a fixed order (kernel before bias); empty for
  // layers without any. Pointers stay valid for the layer's lifetime.
  virtual std::vector<Parameter*> parameters() { return {}; }

  // Sets the parameters to their initial values, drawing from `rng` in the
  // order of parameters(). Layers without parameters draw nothing.
  virtual void InitializeParameters(Rng& /*rng*/) {}

  // Moves every parameter's value and gradient to `device` (values kept).
  // Tensor::To's errors, with nothing moved. Initialize parameters before
  // moving them off the CPU (initialisers write host memory).
  absl::Status MoveParametersTo(Device device);

  // The state of the generator the layer draws from while training (Dropout's
  // masks), saved in checkpoints so a resumed run draws what an uninterrupted
  // one would; empty for layers that draw nothing.
  virtual std::vector<uint64_t> RngState() const { return {}; }
  // Continues from a state RngState() returned. InvalidArgument naming the
  // layer, which is then unchanged, when `state` is not one; layers that
  // draw nothing accept only an empty state.
  virtual absl::Status RestoreRngState(std::span<const uint64_t> state) {
    if (state.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(std::string(label()) +
                                      ": has no random number generator to restore");
  }

 protected:
  explicit Layer(std::string name) : name_(std::move(name)) {}
  // The name for messages: name(), or kind() for an unnamed layer.
  std::string_view label() const { return name_.empty() ? kind() : std::string_view(name_); }

 private:
  friend class Sequential;
  std::string name_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_LAYER_H_
