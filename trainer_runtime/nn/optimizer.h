// The interface of the optimizers (Sgd, Adam, Adagrad): one Apply per
// training step updates every parameter from its gradient.
//
// The optimizer keeps per-parameter state (momentum, moments, accumulators)
// sized on the first Apply and tied to that parameter list's order and
// shapes. The learning rate can change between steps (warmup schedules).
// Parameters on a GPU are updated there by the CUDA kernels, with the state
// kept in GPU memory and copied to the host when state() is read.
// Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_OPTIMIZER_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_OPTIMIZER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "trainer_runtime/nn/parameter.h"

namespace trainpkg::nn {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Updates each parameter's value from its gradient, then counts one
  // iteration. FailedPrecondition (nothing updated) when the list differs in
  // length or in any parameter's size from the list of the first call, or
  // when iterations() is already INT64_MAX (restored so).
  // For GPU parameters, ResourceExhausted / FailedPrecondition when the
  // state cannot be placed in GPU memory on the first such Apply.
  // REQUIRES: every value and grad of the same shape, all on one device.
  absl::Status Apply(std::span<Parameter* const> parameters);

  float learning_rate() const { return learning_rate_; }
  // Takes effect from the next Apply. REQUIRES: learning_rate >= 0.
  void set_learning_rate(float learning_rate);
  // The number of successful Apply calls.
  int64_t iterations() const { return iterations_; }

  // Checkpointing. state(): one buffer per parameter of the first Apply's
  // list, slots() blocks of the parameter's size each (slot k at k * n);
  // empty before the first Apply. RestoreState puts back what iterations()
  // and state() returned; the next Apply checks the buffers against its
  // parameters. InvalidArgument (nothing changed) for negative iterations or
  // a buffer whose size is not a multiple of slots().
  int slots() const { return slots_; }
  const std::vector<std::vector<float>>& state() const;
  absl::Status RestoreState(int64_t iterations, std::vector<std::vector<float>> state);

 protected:
  // Each parameter gets `slots` state buffers of its size, starting at
  // `initial_slot_value`.
  Optimizer(float learning_rate, int slots, float initial_slot_value);

  // Updates one parameter of n values. `state` holds the slots one after the
  // other (slot k at state + k * n). `step` is iterations() + 1. The
  // pointers are memory of update_device().
  virtual void Update(int64_t n, float* value, const float* grad, float* state, int64_t step) = 0;
  // The device of the parameters the current Update call works on.
  Device update_device() const { return update_device_; }

 private:
  float learning_rate_;
  int slots_;
  float initial_slot_value_;
  int64_t iterations_ = 0;
  // The host copy of the state; behind device_state_ while host_stale_.
  mutable std::vector<std::vector<float>> state_;
  mutable bool host_stale_ = false;
  // state_ in GPU memory while the parameters are there; empty otherwise.
  std::vector<Tensor> device_state_;
  Device update_device_ = Device::kCpu;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_OPTIMIZER_H_
