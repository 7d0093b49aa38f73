#include "trainer_runtime/nn/sequential.h"

#include <string>
#include <utility>

#include "base/check.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/rng.h"

namespace trainpkg::nn {

absl::Status Sequential::Add(absl::StatusOr<std::unique_ptr<Layer>> layer) {
  if (!layer.ok()) return layer.status();
  std::unique_ptr<Layer> added = *std::move(layer);
  auto taken = [this](const std::string& name) {
    for (const auto& l : layers_) {
      if (l->name() == name) return true;
    }
    return false;
  };
  if (added->name_.empty()) {
    std::string name(added->kind());
    for (int n = 1; taken(name); ++n) name = fmt::format("{}_{}", added->kind(), n);
    added->name_ = std::move(name);
  } else if (taken(added->name_)) {
    return absl::InvalidArgumentError(
        fmt::format("a layer named {} is already in the model", added->name_));
  }
  for (Parameter* p : added->parameters()) {
    p->name = fmt::format("{}/{}", added->name_, p->name);
    parameters_.push_back(p);
  }
  first_parameter_.push_back(parameters_.size());
  layers_.push_back(std::move(added));
  planned_ = false;
  forward_done_ = false;
  return absl::OkStatus();
}

void Sequential::InitializeParameters(uint64_t seed) {
  Rng rng(seed);
  for (auto& l : layers_) l->InitializeParameters(rng);
}

int64_t Sequential::CountParameters() const {
  int64_t n = 0;
  for (const Parameter* p : parameters_) n += p->value.num_elements();
  return n;
}

absl::Status Sequential::MoveTo(Device device) {
  // Check that the device takes tensors before any layer moves.
  absl::StatusOr<Tensor> probe = Tensor::Zeros({0}, device);
  if (!probe.ok()) return probe.status();
  for (size_t i = 0; i < layers_.size(); ++i) {
    absl::Status moved = layers_[i]->MoveParametersTo(device);
    if (!moved.ok()) {
      for (size_t j = 0; j < i; ++j) (void)layers_[j]->MoveParametersTo(device_);
      return moved;
    }
  }
  device_ = device;
  planned_ = false;
  forward_done_ = false;
  return absl::OkStatus();
}

absl::Status Sequential::Plan(const Shape& input_shape) {
  planned_ = false;
  activations_.resize(layers_.size() + 1);
  gradients_.resize(layers_.size());
  Shape shape = input_shape;
  activations_[0].Resize(shape, device_);
  for (size_t i = 0; i < layers_.size(); ++i) {
    auto next = layers_[i]->OutputShape(shape);
    if (!next.ok()) return next.status();
    shape = *std::move(next);
    activations_[i + 1].Resize(shape, device_);
    if (i + 1 < layers_.size()) gradients_[i + 1].Resize(shape, device_);
  }
  planned_ = true;
  return absl::OkStatus();
}

absl::StatusOr<const Tensor*> Sequential::Forward(const Tensor& batch, bool training) {
  forward_done_ = false;
  if (layers_.empty()) return absl::FailedPreconditionError("the model has no layers");
  if (!planned_ || batch.shape() != activations_[0].shape()) {
    absl::Status planned = Plan(batch.shape());
    if (!planned.ok()) return planned;
  }
  if (batch.device() == device_) {
    activations_[0].CopyFrom(batch);
  } else {
    TP_CHECK(batch.device() == Device::kCpu, "a {} batch for a model on {}",
             DeviceName(batch.device()), DeviceName(device_));
    activations_[0].CopyFromHost(batch.values());
  }
  for (size_t i = 0; i < layers_.size(); ++i) {
    layers_[i]->Forward(activations_[i], training, &activations_[i + 1]);
  }
  forward_done_ = true;
  return &activations_.back();
}

absl::Status Sequential::Backward(const Tensor& loss_grad,
                                  const std::function<void(Parameter&)>& on_gradient_ready) {
  if (!forward_done_) return absl::FailedPreconditionError("Backward needs a Forward first");
  if (loss_grad.shape() != activations_.back().shape()) {
    return absl::InvalidArgumentError(
        fmt::format("the loss gradient has shape {}, the model output {}",
                    ShapeToString(loss_grad.shape()), ShapeToString(activations_.back().shape())));
  }
  if (loss_grad.device() != device_) {
    return absl::InvalidArgumentError(fmt::format("the loss gradient is on {}, the model on {}",
                                                  DeviceName(loss_grad.device()),
                                                  DeviceName(device_)));
  }
  for (size_t i = layers_.size(); i-- > 0;) {
    const Tensor& output_grad = i + 1 == layers_.size() ? loss_grad : gradients_[i + 1];
    Tensor* input_grad = i == 0 ? nullptr : &gradients_[i];
    layers_[i]->Backward(activations_[i], activations_[i + 1], output_grad, input_grad);
    if (on_gradient_ready) {
      for (size_t p = first_parameter_[i + 1]; p-- > first_parameter_[i];) {
        on_gradient_ready(*parameters_[p]);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::nn
