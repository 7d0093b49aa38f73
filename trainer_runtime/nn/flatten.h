// Flattens every dimension after the batch: [batch, d1, d2, ...] ->
// [batch, d1 * d2 * ...]. Row-major, so the values keep their order.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_FLATTEN_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_FLATTEN_H_

#include <string>

#include "trainer_runtime/nn/layer.h"

namespace trainpkg::nn {

class Flatten final : public Layer {
 public:
  // An empty name is filled in by the Sequential ("flatten", "flatten_1", ...).
  explicit Flatten(std::string name = "") : Layer(std::move(name)) {}

  std::string_view kind() const override { return "flatten"; }
  // InvalidArgument for a rank-0 input.
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_FLATTEN_H_
