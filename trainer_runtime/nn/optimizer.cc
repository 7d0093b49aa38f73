#include "trainer_runtime/nn/optimizer.h"

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
  return absl::OkStatus();
}

absl::Status Optimizer::Apply(std::span<Parameter* const> parameters) {
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
  for (size_t i = 0; i < parameters.size(); ++i) {
    Parameter& p = *parameters[i];
    TP_CHECK(p.grad.shape() == p.value.shape(), "{}: gradient {} for value {}", p.name,
             ShapeToString(p.grad.shape()), ShapeToString(p.value.shape()));
    TP_CHECK(p.value.device() == Device::kCpu && p.grad.device() == Device::kCpu,
             "{}: CPU optimizer on a {} parameter", p.name, DeviceName(p.value.device()));
    Update(p.value.num_elements(), p.value.data(), p.grad.data(), state_[i].data(),
           iterations_ + 1);
  }
  ++iterations_;
  return absl::OkStatus();
}

}  // namespace trainpkg::nn
