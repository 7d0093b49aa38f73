// Rectified linear unit, element-wise: output = max(input, 0). Any shape.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_RELU_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_RELU_H_

#include <string>

#include "trainer_runtime/nn/layer.h"

namespace trainpkg::nn {

class ReLU final : public Layer {
 public:
  // An empty name is filled in by the Sequential ("re_lu", "re_lu_1", ...).
  explicit ReLU(std::string name = "") : Layer(std::move(name)) {}

  std::string_view kind() const override { return "re_lu"; }
  // InvalidArgument for a rank-0 input (no batch dimension).
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_RELU_H_
