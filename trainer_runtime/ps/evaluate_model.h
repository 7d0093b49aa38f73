// The model's mean loss and accuracy on a data set (no training behaviour),
// what the evaluator reports for each checkpoint.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_EVALUATE_MODEL_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_EVALUATE_MODEL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/nn/sequential.h"

namespace trainpkg::ps {

struct EvalMetrics {
  double loss = 0.0;
  double accuracy = 0.0;
  int64_t examples = 0;
};

// InvalidArgument for an empty data set or batch_size < 1, or the model's
// errors for elements it rejects.
absl::StatusOr<EvalMetrics> EvaluateModel(nn::Sequential& model, const data::Dataset& dataset,
                                          int64_t batch_size = 256);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_EVALUATE_MODEL_H_
