#include "trainer_runtime/nn/layer.h"

#include <utility>

namespace trainpkg::nn {

absl::Status Layer::MoveParametersTo(Device device) {
  std::vector<Parameter*> moving = parameters();
  // Every copy is made before any parameter changes.
  std::vector<Tensor> values;
  std::vector<Tensor> grads;
  for (const Parameter* p : moving) {
    absl::StatusOr<Tensor> value = p->value.To(device);
    if (!value.ok()) return value.status();
    absl::StatusOr<Tensor> grad = p->grad.To(device);
    if (!grad.ok()) return grad.status();
    values.push_back(*std::move(value));
    grads.push_back(*std::move(grad));
  }
  for (size_t i = 0; i < moving.size(); ++i) {
    moving[i]->value = std::move(values[i]);
    moving[i]->grad = std::move(grads[i]);
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::nn
