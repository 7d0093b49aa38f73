#include "trainer_runtime/ps/evaluate_model.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/nn/sparse_categorical_accuracy.h"
#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

namespace trainpkg::ps {

absl::StatusOr<EvalMetrics> EvaluateModel(nn::Sequential& model, const data::Dataset& dataset,
                                          int64_t batch_size) {
  if (dataset.size() < 1 || batch_size < 1) {
    return absl::InvalidArgumentError(
        fmt::format("evaluation on {} elements with batch size {}; need both >= 1", dataset.size(),
                    batch_size));
  }
  nn::SparseCategoricalAccuracy accuracy;
  double loss_sum = 0.0;
  nn::Tensor features;
  const int64_t size = dataset.element_size();
  for (int64_t start = 0; start < dataset.size(); start += batch_size) {
    const int64_t n = std::min(batch_size, dataset.size() - start);
    nn::Shape shape{n};
    shape.insert(shape.end(), dataset.element_shape().begin(), dataset.element_shape().end());
    features.Resize(shape);
    std::memcpy(features.data(), dataset.features().data() + start * size,
                sizeof(float) * static_cast<size_t>(n * size));
    std::span<const int32_t> labels =
        dataset.labels().subspan(static_cast<size_t>(start), static_cast<size_t>(n));
    TP_ASSIGN_OR_RETURN(const nn::Tensor* logits, model.Forward(features, /*training=*/false));
    TP_ASSIGN_OR_RETURN(float loss, nn::SparseSoftmaxCrossEntropy(*logits, labels));
    loss_sum += static_cast<double>(loss) * static_cast<double>(n);
    TP_RETURN_IF_ERROR(accuracy.Update(*logits, labels));
  }
  return EvalMetrics{loss_sum / static_cast<double>(dataset.size()), accuracy.Result(),
                     dataset.size()};
}

}  // namespace trainpkg::ps
