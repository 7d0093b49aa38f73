#include "trainer_runtime/nn/optimizer.h"

#include <limits>
#include <utility>

#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::nn {

Optimizer::Optimizer(float learning_rate, int slots, float initial_slot_value)
    : learning_rate_(learning_rate), slots_(slots), initial_slot_value_(initial_slot_value) {
  TP_CHECK(learning_rate >= 0.0f, "learning rate {}", learning_rate);
}

void Optimizer::set_learning_rate(float learning_rate) {
  TP_CHECK(learning_rate >= 0.0f, "learning rate {}", learning_rate);
  learning_rate_ = learning_rate;
}

absl::Status Optimizer::RestoreState(int64_t iterations, std::vector<std::vector<float>> state) {
  if (iterations < 0) {
    return absl::InvalidArgumentError(
        fmt::format("optimizer state: iterations {} (must be >= 0)", iterations));
  }
  for (size_t i = 0; i < state.size(); ++i) {
    if (slots_ > 0 && state[i].size() % static_cast<size_t>(slots_) != 0) {
      return absl::InvalidArgumentError(
          fmt::format("optimizer state: buffer {} has {} values, not a multiple of {} slots", i,
                      state[i].size(), slots_));
    }
  }
  iterations_ = iterations;
  state_ = std::move(state);
  host_stale_ = false;
  device_state_.clear();
  return absl::OkStatus();
}

const std::vector<std::vector<float>>& Optimizer::state() const {
  if (host_stale_) {
    for (size_t i = 0; i < state_.size(); ++i) device_state_[i].CopyToHost(state_[i]);
    host_stale_ = false;
  }
  return state_;
}

absl::Status Optimizer::Apply(std::span<Parameter* const> parameters) {
  // Only RestoreState can bring the count this far (a peer or checkpoint
  // claiming 2^63 - 1 steps); the step number would overflow.
  if (iterations_ == std::numeric_limits<int64_t>::max()) {
    return absl::FailedPreconditionError(fmt::format(
        "optimizer: {} iterations already, the most it can count; nothing updated", iterations_));
  }
  if (iterations_ == 0 && state_.empty()) {
    state_.reserve(parameters.size());
    for (const Parameter* p : parameters) {
      state_.emplace_back(static_cast<size_t>(p->value.num_elements() * slots_),
                          initial_slot_value_);
    }
  }
  if (state_.size() != parameters.size()) {
    return absl::FailedPreconditionError(fmt::format(
        "optimizer: {} parameters, but its state is for {}", parameters.size(), state_.size()));
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    const int64_t n = parameters[i]->value.num_elements();
    if (static_cast<int64_t>(state_[i].size()) != n * slots_) {
      return absl::FailedPreconditionError(
          fmt::format("optimizer: parameter {} ({}) has {} values, its state is for {}", i,
                      parameters[i]->name, n, state_[i].size() / static_cast<size_t>(slots_)));
    }
  }
  const Device device = parameters.empty() ? Device::kCpu : parameters[0]->value.device();
  if (device == Device::kCuda && device_state_.size() != state_.size()) {
    // First GPU step (or after RestoreState): the state moves to the GPU.
    std::vector<Tensor> on_device;
    for (const std::vector<float>& buffer : state_) {
      absl::StatusOr<Tensor> t = Tensor::Zeros({static_cast<int64_t>(buffer.size())}, device);
      if (!t.ok()) return t.status();
      t->CopyFromHost(buffer);
      on_device.push_back(*std::move(t));
    }
    device_state_ = std::move(on_device);
  } else if (device == Device::kCpu && !device_state_.empty()) {
    (void)state();  // parameters back on the CPU: continue from the GPU's state
    device_state_.clear();
  }
  update_device_ = device;
  for (size_t i = 0; i < parameters.size(); ++i) {
    Parameter& p = *parameters[i];
    TP_CHECK(p.grad.shape() == p.value.shape(), "{}: gradient {} for value {}", p.name,
             ShapeToString(p.grad.shape()), ShapeToString(p.value.shape()));
    TP_CHECK(p.value.device() == device && p.grad.device() == device,
             "{}: value on {} and gradient on {}, the first parameter on {}", p.name,
             DeviceName(p.value.device()), DeviceName(p.grad.device()), DeviceName(device));
    float* slots = device == Device::kCpu ? state_[i].data() : device_state_[i].data();
    Update(p.value.num_elements(), p.value.data(), p.grad.data(), slots, iterations_ + 1);
  }
  host_stale_ = device == Device::kCuda;
  ++iterations_;
  return absl::OkStatus();
}

}  // namespace trainpkg::nn
