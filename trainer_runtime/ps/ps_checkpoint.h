// Checkpoints of parameter-server training in the model file format
// (tensor_bundle.h, kind "checkpoint"): the model's layers and parameters
// (so LoadModel/RestoreModel read it as a model, as the evaluator does),
// plus every variable's optimizer slots as "<variable>/optimizer_slot_<k>"
// and the counters "step" (steps finished) and
// "optimizer_iterations/<shard name>".
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_PS_CHECKPOINT_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_PS_CHECKPOINT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/ps/shard_plan.h"
#include "trainer_runtime/ps/variable_client.h"
#include "trainer_runtime/train/tensor_bundle.h"

namespace trainpkg::ps {

// Copies state's values into `model` and makes the checkpoint.
// REQUIRES: state fits the plan, the plan was made from model's parameters.
train::TensorBundle MakePsCheckpoint(nn::Sequential& model, const ShardPlan& plan,
                                     const VariableState& state, int64_t step);

struct RestoredCheckpoint {
  VariableState state;
  int64_t step = 0;
};

// The state to Assign to the parameter servers. FailedPrecondition (naming
// `where` and the first difference) when the checkpoint is not one of this
// model and plan.
absl::StatusOr<RestoredCheckpoint> ReadPsCheckpoint(const train::TensorBundle& bundle,
                                                    const ShardPlan& plan, std::string_view where);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_PS_CHECKPOINT_H_
