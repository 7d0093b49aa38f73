// Adagrad in PyTorch's form (torch.optim.Adagrad, no learning-rate decay):
//   sum += g^2;  w -= lr g / (sqrt(sum) + epsilon)
// Defaults are PyTorch's (lr 0.01, initial accumulator 0, epsilon 1e-10);
// Keras's are lr 0.001, initial accumulator 0.1, epsilon 1e-7.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_ADAGRAD_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_ADAGRAD_H_

#include <memory>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/optimizer.h"

namespace trainpkg::nn {

struct AdagradOptions {
  float learning_rate = 0.01f;
  float initial_accumulator_value = 0.0f;
  float epsilon = 1e-10f;
};

class Adagrad final : public Optimizer {
 public:
  // InvalidArgument for a negative learning rate, accumulator or epsilon.
  static absl::StatusOr<std::unique_ptr<Adagrad>> Create(AdagradOptions options = {});

 private:
  explicit Adagrad(AdagradOptions options);
  void Update(int64_t n, float* value, const float* grad, float* state, int64_t step) override;

  AdagradOptions options_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_ADAGRAD_H_
