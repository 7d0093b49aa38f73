#include "samples/digits_multiworker/digits_model.h"

#include <memory>
#include <string>

#include "base/status_macros.h"
#include "trainer_runtime/nn/conv2d.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/global_average_pooling2d.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/nn/window_geometry.h"

namespace trainpkg::samples {

absl::StatusOr<DigitsModelKind> ParseDigitsModelKind(std::string_view name) {
  if (name == "mlp") return DigitsModelKind::kMlp;
  if (name == "cnn") return DigitsModelKind::kCnn;
  return absl::InvalidArgumentError("--model=" + std::string(name) + ": must be mlp or cnn");
}

nn::Shape DigitsInputShape(DigitsModelKind kind) {
  return kind == DigitsModelKind::kMlp ? nn::Shape{64} : nn::Shape{8, 8, 1};
}

absl::StatusOr<nn::Sequential> BuildDigitsModel(DigitsModelKind kind, uint64_t seed) {
  nn::Sequential model;
  if (kind == DigitsModelKind::kMlp) {
    TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(64, 256)));
    TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
    TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(256, 128)));
    TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
    TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(128, 10)));
  } else {
    nn::Conv2DOptions same;
    same.padding = nn::Padding::kSame;
    TP_RETURN_IF_ERROR(model.Add(nn::Conv2D::Create(1, 16, 3, 3, same)));
    TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
    TP_RETURN_IF_ERROR(model.Add(nn::Conv2D::Create(16, 32, 3, 3, same)));
    TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
    TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::GlobalAveragePooling2D>()));
    TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(32, 10)));
  }
  model.InitializeParameters(seed);
  return model;
}

}  // namespace trainpkg::samples
