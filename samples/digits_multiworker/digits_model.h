// The sample's two models for 8x8 digits, both ending in 10 logits:
//   mlp: [b, 64] -> Dense 256 -> ReLU -> Dense 128 -> ReLU -> Dense 10
//        (the reference configuration, as the PyTorch comparison)
//   cnn: [b, 8, 8, 1] -> Conv2D 16 3x3 same -> ReLU -> Conv2D 32 3x3 same
//        -> ReLU -> GlobalAveragePooling2D -> Dense 10
#ifndef TRAINPKG_SAMPLES_DIGITS_MULTIWORKER_DIGITS_MODEL_H_
#define TRAINPKG_SAMPLES_DIGITS_MULTIWORKER_DIGITS_MODEL_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::samples {

enum class DigitsModelKind { kMlp, kCnn };

// "mlp" or "cnn"; InvalidArgument naming both otherwise.
absl::StatusOr<DigitsModelKind> ParseDigitsModelKind(std::string_view name);

// The shape of one input element: [64] for the MLP, [8, 8, 1] for the CNN.
nn::Shape DigitsInputShape(DigitsModelKind kind);

// The model with parameters initialized from `seed`.
absl::StatusOr<nn::Sequential> BuildDigitsModel(DigitsModelKind kind, uint64_t seed);

}  // namespace trainpkg::samples

#endif  // TRAINPKG_SAMPLES_DIGITS_MULTIWORKER_DIGITS_MODEL_H_
