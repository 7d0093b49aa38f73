#include "trainer_runtime/train/output_dirs.h"

#include <optional>
#include <string_view>

namespace trainpkg::train {
namespace {

std::string Pick(const base::Environment& env, const std::string& flag, std::string_view variable,
                 const std::string& job_dir, std::string_view job_subdir) {
  if (!flag.empty()) return flag;
  std::optional<std::string> value = env.Get(variable);
  if (value && !value->empty()) return *value;
  // The subdirectories are the ones Vertex uses under baseOutputDirectory
  // for AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and AIP_TENSORBOARD_LOG_DIR, so a
  // local run with --job-dir lays its outputs out as a Vertex job would.
  if (job_dir.empty()) return "";
  std::string base = job_dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base + "/" + std::string(job_subdir);
}

}  // namespace

OutputDirs ResolveOutputDirs(const base::Environment& env, const OutputDirFlags& flags) {
  return {Pick(env, flags.model_dir, "AIP_MODEL_DIR", flags.job_dir, "model"),
          Pick(env, flags.checkpoint_dir, "AIP_CHECKPOINT_DIR", flags.job_dir, "checkpoints"),
          Pick(env, flags.tensorboard_dir, "AIP_TENSORBOARD_LOG_DIR", flags.job_dir, "logs")};
}

}  // namespace trainpkg::train
