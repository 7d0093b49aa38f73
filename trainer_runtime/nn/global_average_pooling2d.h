// The mean over height and width of an NHWC batch (Keras's
// GlobalAveragePooling2D): [batch, height, width, channels] -> [batch, channels].
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_GLOBAL_AVERAGE_POOLING2D_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_GLOBAL_AVERAGE_POOLING2D_H_

#include <string>

#include "trainer_runtime/nn/layer.h"

namespace trainpkg::nn {

class GlobalAveragePooling2D final : public Layer {
 public:
  // An empty name is filled in by the Sequential ("global_average_pooling2d", ...).
  explicit GlobalAveragePooling2D(std::string name = "") : Layer(std::move(name)) {}

  std::string_view kind() const override { return "global_average_pooling2d"; }
  // InvalidArgument unless the input is rank 4 with height and width >= 1.
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_GLOBAL_AVERAGE_POOLING2D_H_
