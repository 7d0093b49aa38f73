// Adam with bias correction, in PyTorch's form (torch.optim.Adam):
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   w -= (lr / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + epsilon)
// Defaults are PyTorch's (lr 1e-3, betas 0.9 / 0.999, epsilon 1e-8), since
// results are compared with PyTorch one to one. For Keras's behaviour use
// epsilon 1e-7; Keras also adds epsilon to sqrt(v) before the bias
// correction of v, which differs from this form only while v is tiny.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_ADAM_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_ADAM_H_

#include <memory>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/optimizer.h"

namespace trainpkg::nn {

struct AdamOptions {
  float learning_rate = 1e-3f;
  float beta_1 = 0.9f;
  float beta_2 = 0.999f;
  float epsilon = 1e-8f;
};

class Adam final : public Optimizer {
 public:
  // InvalidArgument for a negative learning rate or epsilon, or a beta
  // outside [0, 1).
  static absl::StatusOr<std::unique_ptr<Adam>> Create(AdamOptions options = {});

 private:
  explicit Adam(AdamOptions options);
  void Update(int64_t n, float* value, const float* grad, float* state, int64_t step) override;

  AdamOptions options_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_ADAM_H_
