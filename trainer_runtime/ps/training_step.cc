#include "trainer_runtime/ps/training_step.h"

#include "base/status_macros.h"
#include "trainer_runtime/nn/sparse_categorical_accuracy.h"
#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

namespace trainpkg::ps {

absl::StatusOr<StepResult> TrainingStep(nn::Sequential& model, VariableClient& variables,
                                        const train::Batch& batch) {
  TP_RETURN_IF_ERROR(variables.Pull(model.parameters()));
  TP_ASSIGN_OR_RETURN(const nn::Tensor* logits, model.Forward(batch.features, /*training=*/true));
  nn::Tensor logits_grad;
  TP_ASSIGN_OR_RETURN(float loss,
                      nn::SparseSoftmaxCrossEntropy(*logits, batch.labels, &logits_grad));
  nn::SparseCategoricalAccuracy accuracy;
  TP_RETURN_IF_ERROR(accuracy.Update(*logits, batch.labels));
  TP_RETURN_IF_ERROR(model.Backward(logits_grad));
  TP_RETURN_IF_ERROR(variables.Push(model.parameters()));
  return StepResult{loss, accuracy.correct(), static_cast<int64_t>(batch.labels.size())};
}

}  // namespace trainpkg::ps
