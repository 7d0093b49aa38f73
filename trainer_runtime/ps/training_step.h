// One asynchronous training step of a worker: pull the current values from
// the parameter servers, forward and backward on one batch (softmax
// cross-entropy on integer labels), push the gradients. The ps apply the
// optimizer; the worker keeps no optimizer of its own.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_TRAINING_STEP_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_TRAINING_STEP_H_

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/ps/step_result.h"
#include "trainer_runtime/ps/variable_client.h"
#include "trainer_runtime/train/batch_source.h"

namespace trainpkg::ps {

// VariableClient's errors (Aborted naming an unreachable ps), or the
// model's and loss's (InvalidArgument for a batch the model rejects).
// REQUIRES: variables' plan was made from model.parameters().
absl::StatusOr<StepResult> TrainingStep(nn::Sequential& model, VariableClient& variables,
                                        const train::Batch& batch);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_TRAINING_STEP_H_
