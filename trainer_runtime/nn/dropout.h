// Inverted dropout (Keras's Dropout): in training each value is kept with
// probability 1 - rate and scaled by 1 / (1 - rate), otherwise zeroed; in
// inference the input passes through unchanged. Any input shape.
//
// The mask comes from the layer's own Rng (rng.h): value i of a forward pass
// is kept when Uniform01() >= rate, drawn in row-major order, so the same
// seed gives the same masks on every machine. Reseed restarts the sequence;
// RngState / RestoreRngState carry it through a checkpoint.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_DROPOUT_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_DROPOUT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/layer.h"
#include "trainer_runtime/nn/rng.h"

namespace trainpkg::nn {

struct DropoutOptions {
  std::string name = "";  // empty: named by the Sequential ("dropout", "dropout_1", ...)
  uint64_t seed = 0;
};

class Dropout final : public Layer {
 public:
  // InvalidArgument unless 0 <= rate < 1.
  static absl::StatusOr<std::unique_ptr<Dropout>> Create(float rate, DropoutOptions options = {});

  std::string_view kind() const override { return "dropout"; }
  // InvalidArgument for a rank-0 input.
  absl::StatusOr<Shape> OutputShape(const Shape& input_shape) const override;
  void Forward(const Tensor& input, bool training, Tensor* output) override;
  void Backward(const Tensor& input, const Tensor& output, const Tensor& output_grad,
                Tensor* input_grad) override;

  // Restarts the mask sequence from `seed`.
  void Reseed(uint64_t seed) { rng_ = Rng(seed); }

  std::vector<uint64_t> RngState() const override { return rng_.State(); }
  absl::Status RestoreRngState(std::span<const uint64_t> state) override;

 private:
  Dropout(float rate, DropoutOptions options);

  float rate_;
  Rng rng_;
  bool masked_ = false;  // whether the last Forward applied mask_
  Tensor mask_;          // 0 or 1 / (1 - rate) per value, on the input's device
  Tensor host_mask_;     // for a GPU input: the mask as drawn on the host
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_DROPOUT_H_
