// A stack of layers run in order, Keras's Sequential with PyTorch's explicit
// layer sizes:
//
//   Sequential model;
//   TP_RETURN_IF_ERROR(model.Add(Dense::Create(64, 256)));
//   TP_RETURN_IF_ERROR(model.Add(std::make_unique<ReLU>()));
//   TP_RETURN_IF_ERROR(model.Add(Dense::Create(256, 10)));
//   model.InitializeParameters(/*seed=*/42);
//   TP_ASSIGN_OR_RETURN(const Tensor* logits, model.Forward(batch, /*training=*/true));
//   ... loss and its gradient d(loss)/d(logits) ...
//   TP_RETURN_IF_ERROR(model.Backward(logits_grad));
//   TP_RETURN_IF_ERROR(optimizer.Apply(model.parameters()));
//
// The model owns every activation and gradient buffer and reuses them while
// the batch shape stays the same, so a training step allocates nothing after
// the first one. Parameters are listed in registration order (layer by
// layer, kernel before bias); Backward finishes their gradients in exactly
// the reverse order, which is the order a DDP-style reducer fills buckets.
// Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_SEQUENTIAL_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_SEQUENTIAL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/nn/layer.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/nn/tensor.h"

namespace trainpkg::nn {

class Sequential {
 public:
  Sequential() = default;
  Sequential(Sequential&&) = default;
  Sequential& operator=(Sequential&&) = default;

  // Appends a layer (or passes on the error of the factory that failed to
  // make it). An unnamed layer is named after its kind as Keras does
  // ("dense", then "dense_1", ...); parameters are renamed
  // "<layer>/<parameter>". InvalidArgument when the name is already taken.
  absl::Status Add(absl::StatusOr<std::unique_ptr<Layer>> layer);

  // Sets every parameter to its initial value from one Rng(seed), layer by
  // layer in order: the same seed gives the same weights on every machine.
  void InitializeParameters(uint64_t seed);

  // Runs `batch` (copied into the model) through every layer; `training`
  // turns on dropout. Returns the model's output, owned by the model and
  // valid until the next Forward. InvalidArgument naming the first layer
  // that rejects its input shape; FailedPrecondition for a model without
  // layers. `batch` may be on the CPU or on the model's device.
  absl::StatusOr<const Tensor*> Forward(const Tensor& batch, bool training);

  // Back-propagates d(loss)/d(output) through the last Forward, overwriting
  // every parameter's gradient. on_gradient_ready, when set, is called once
  // per parameter as soon as its gradient is final, in reverse registration
  // order (to start an allreduce while earlier layers still run).
  // FailedPrecondition before a successful Forward; InvalidArgument when
  // loss_grad's shape differs from the output's or it is not on device().
  absl::Status Backward(const Tensor& loss_grad,
                        const std::function<void(Parameter&)>& on_gradient_ready = nullptr);

  // Moves the parameters (Layer::MoveParametersTo) and every activation and
  // gradient buffer to `device`; layers then run that device's kernels.
  // Tensor::To's errors, with nothing moved.
  absl::Status MoveTo(Device device);
  // Where the parameters and buffers are (kCpu until MoveTo).
  Device device() const { return device_; }

  // Every parameter, in registration order. Valid for the model's lifetime.
  const std::vector<Parameter*>& parameters() const { return parameters_; }
  // The number of parameter values (Keras's count_params()).
  int64_t CountParameters() const;
  size_t num_layers() const { return layers_.size(); }
  // REQUIRES: i < num_layers().
  Layer& layer(size_t i) { return *layers_.at(i); }

 private:
  // Computes every layer's output shape for `input_shape` and sizes the
  // buffers; InvalidArgument from the first layer that rejects its input.
  absl::Status Plan(const Shape& input_shape);

  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Parameter*> parameters_;
  // Layer i owns parameters_[first_parameter_[i] .. first_parameter_[i + 1]).
  std::vector<size_t> first_parameter_{0};
  // activations_[0] is the input, activations_[i + 1] layer i's output.
  std::vector<Tensor> activations_;
  // gradients_[i] is d(loss)/d(activations_[i]) for 1 <= i < layers.
  std::vector<Tensor> gradients_;
  Device device_ = Device::kCpu;
  bool planned_ = false;
  bool forward_done_ = false;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_SEQUENTIAL_H_
