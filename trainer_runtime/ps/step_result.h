// What one training step on a worker reports back to the chief.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_STEP_RESULT_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_STEP_RESULT_H_

#include <cstdint>

namespace trainpkg::ps {

struct StepResult {
  double loss = 0.0;     // mean over the batch
  int64_t correct = 0;   // correctly classified examples of the batch
  int64_t examples = 0;  // batch size
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_STEP_RESULT_H_
