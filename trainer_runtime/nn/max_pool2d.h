// Max pooling on NHWC batches (Keras's MaxPooling2D): [batch, height, width,
// channels] -> [batch, out_height, out_width, channels] by window_geometry.h's
// rules; strides default to the pool size. The gradient of a window goes to
// its maximum, the first one in row-major window order on a tie.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_MAX_POOL2D_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_MAX_POOL2D_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/cuda/device_array.h"
#include "trainer_runtime/nn/layer.h"
#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::nn {

struct MaxPool2DOptions {
  std::string name = "";      // empty: named by the Sequential ("max_pooling2d", ...)
  int64_t stride_height = 0;  // 0: the pool height
  int64_t stride_width = 0;   // 0: the pool width
  Padding padding = Padding::kValid;
};

class MaxPool2D final : public Layer {
 public:
  // InvalidArgument unless the pool size is >= 1 and strides are >= 0.
  static absl::StatusOr<std::unique_ptr<MaxPool2D>> Create(int64_t pool_height, int64_t pool_width,
                                                           MaxPool2DOptions options = {});

  std::string_view kind() const override { return "max_pooling2d"; }
  // InvalidArgument unless the input is rank 4 and, with 'valid' padding, at
  // least as large as the pool.
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;

 private:
  MaxPool2D(int64_t pool_height, int64_t pool_width, MaxPool2DOptions options);
  absl::StatusOr<WindowGeometry> Geometry(const Shape& input_shape) const;

  int64_t pool_height_;
  int64_t pool_width_;
  MaxPool2DOptions options_;
  WindowGeometry geometry_;  // of the last Forward
  // The flat input index of each output of the last Forward, in host or
  // device memory as its input was.
  std::vector<int64_t> argmax_;
  cuda::DeviceArray<int64_t> device_argmax_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_MAX_POOL2D_H_
