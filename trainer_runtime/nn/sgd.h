// Stochastic gradient descent with optional (Nesterov) momentum, in PyTorch's
// form (torch.optim.SGD, dampening 0):
//   b = momentum b + g;  w -= lr (g + momentum b) [Nesterov] or lr b.
// With a constant learning rate this equals Keras's v = m v - lr g form; it
// differs only while the rate changes (the momentum buffer holds gradients,
// not steps, so a warmup rescales past momentum too, as in PyTorch).
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_SGD_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_SGD_H_

#include <memory>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/optimizer.h"

namespace trainpkg::nn {

struct SgdOptions {
  float learning_rate = 0.01f;  // Keras's default
  float momentum = 0.0f;
  bool nesterov = false;
};

class Sgd final : public Optimizer {
 public:
  // InvalidArgument for a negative learning rate or momentum, or Nesterov
  // without momentum.
  static absl::StatusOr<std::unique_ptr<Sgd>> Create(SgdOptions options = {});

 private:
  explicit Sgd(SgdOptions options);
  void Update(int64_t n, float* value, const float* grad, float* state, int64_t step) override;

  SgdOptions options_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_SGD_H_
