// hello_trainer: one replica of a training job. Prints who it is in the
// cluster (from the variables the launcher set: TF_CONFIG, CLUSTER_SPEC,
// torchrun or Slurm) and saves model.txt by the chief/worker rule: the chief
// into $AIP_MODEL_DIR, every other worker into a temporary directory that is
// removed after the save. Exit status 1 on any error.
#include <trainpkg/base/environment.h>
#include <trainpkg/trainer_runtime/cluster_info.h>
#include <trainpkg/trainer_runtime/output_paths.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

namespace runtime = ::trainpkg::runtime;

int main() {
  const trainpkg::base::Environment& env = trainpkg::base::ProcessEnvironment();
  absl::StatusOr<runtime::ClusterInfo> info = runtime::ResolveClusterInfo(env);
  if (!info.ok()) {
    std::cerr << "hello_trainer: error: " << info.status() << "\n";
    return 1;
  }
  std::cout << "hello_trainer: " << info->task_type << " " << info->task_index << ": rank "
            << info->rank << " of " << info->world_size << "\n";

  std::optional<std::string> model_dir = env.Get("AIP_MODEL_DIR");
  if (!model_dir) {
    std::cerr << "hello_trainer: error: AIP_MODEL_DIR is not set\n";
    return 1;
  }
  absl::StatusOr<runtime::ModelWriteDir> dir = runtime::ModelWriteDir::Create(
      *model_dir, *info, runtime::ModelWriteOptionsFromEnvironment(env));
  if (!dir.ok()) {
    std::cerr << "hello_trainer: error: " << dir.status() << "\n";
    return 1;
  }
  const std::filesystem::path model_file = dir->path() / "model.txt";
  std::ofstream model(model_file);
  model << "world_size=" << info->world_size << " saved_by_rank=" << info->rank << "\n";
  if (!model.flush()) {
    std::cerr << "hello_trainer: error: writing " << model_file.string() << " failed\n";
    return 1;
  }
  if (absl::Status finished = dir->Finish(); !finished.ok()) {
    std::cerr << "hello_trainer: error: " << finished << "\n";
    return 1;
  }
  return 0;
}
