// Where a trainer writes: the model, the backups and the TensorBoard logs.
// Flags win over Vertex's variables, which win over --job-dir (AI
// Platform's single output flag, laid out as Vertex lays out
// baseOutputDirectory):
//   model_dir       --model-dir, AIP_MODEL_DIR, <job-dir>/model
//   checkpoint_dir  --checkpoint-dir, AIP_CHECKPOINT_DIR, <job-dir>/checkpoints
//   tensorboard_dir --tensorboard-dir, AIP_TENSORBOARD_LOG_DIR, <job-dir>/logs
// A variable or flag set to "" counts as unset; "" in the result means
// "not configured". Values are URIs or paths as LocalPathForUri takes them.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_OUTPUT_DIRS_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_OUTPUT_DIRS_H_

#include <string>

#include "base/environment.h"

namespace trainpkg::train {

struct OutputDirFlags {
  std::string model_dir;
  std::string checkpoint_dir;
  std::string tensorboard_dir;
  std::string job_dir;
};

struct OutputDirs {
  std::string model_dir;
  std::string checkpoint_dir;
  std::string tensorboard_dir;
};

OutputDirs ResolveOutputDirs(const base::Environment& env, const OutputDirFlags& flags);

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_OUTPUT_DIRS_H_
