// A fully connected layer: output = input · kernel + bias, with input
// [batch, input_units], kernel [input_units, units] (Keras's layout) and
// bias [units].
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_DENSE_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_DENSE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/initializer.h"
#include "trainer_runtime/nn/layer.h"

namespace trainpkg::nn {

struct DenseOptions {
  std::string name = "";  // empty: named by the Sequential ("dense", "dense_1", ...)
  Initializer kernel_initializer = Initializer::kGlorotUniform;
  bool use_bias = true;  // the bias starts at zero
};

class Dense final : public Layer {
 public:
  // InvalidArgument unless input_units >= 1 and units >= 1.
  static absl::StatusOr<std::unique_ptr<Dense>> Create(int64_t input_units, int64_t units,
                                                       DenseOptions options = {});

  std::string_view kind() const override { return "dense"; }
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;
  std::vector<Parameter*> parameters() override;
  void InitializeParameters(Rng& rng) override;

  Parameter& kernel() { return kernel_; }
  Parameter& bias() { return bias_; }

 private:
  Dense(int64_t input_units, int64_t units, DenseOptions options);

  int64_t input_units_;
  int64_t units_;
  DenseOptions options_;
  Parameter kernel_;
  Parameter bias_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_DENSE_H_
