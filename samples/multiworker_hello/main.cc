// multiworker_hello: a trainer that finds its place in a multi-replica job
// and saves by the chief/worker rule, without any networking.
//
// Each replica resolves who it is (TF_CONFIG, CLUSTER_SPEC, torchrun or
// Slurm variables), prints it with the GPUs it sees and the raw cluster
// variables, computes its own shard of a sum, and writes model.json: the
// chief into the model directory, every other worker into
// <dir>/workertemp_<i>, which is removed afterwards. There are no
// collectives yet, so the shards are not combined.
//
//   multiworker_hello [--model_dir=PATH] [--keep_worker_temp]
//
// The model directory is --model_dir, else AIP_MODEL_DIR. Exit status: 0 on
// success, 1 when the cluster variables are malformed or writing fails, 2
// for a usage error or no model directory.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "base/environment.h"
#include "jobspec/cluster_env.h"
#include "samples/common/flags.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/cuda/gpu_devices.h"
#include "trainer_runtime/output_paths.h"

namespace {

namespace runtime = ::trainpkg::runtime;

constexpr int64_t kTerms = 1000;

struct Flags {
  std::string model_dir;
  bool keep_worker_temp = false;
};

void AddFlags(CLI::App& app, Flags& flags) {
  app.add_option("--model_dir", flags.model_dir, "where the chief writes (default $AIP_MODEL_DIR)");
  app.add_flag("--keep_worker_temp", flags.keep_worker_temp,
               "keep the workers' workertemp_<i> directories");
}

// This rank's shard of 1^2 + 2^2 + ... + kTerms^2: the terms i with
// i % world_size == rank.
uint64_t ShardSumOfSquares(int64_t rank, int64_t world_size) {
  uint64_t sum = 0;
  for (int64_t i = 1; i <= kTerms; ++i) {
    if (i % world_size == rank) sum += static_cast<uint64_t>(i * i);
  }
  return sum;
}

// FNV-1a, 64 bits.
uint64_t Fnv1a(std::string_view text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

// One line naming the GPUs this replica sees, or why it sees none.
void PrintAccelerators() {
  absl::StatusOr<std::vector<runtime::GpuInfo>> gpus = runtime::ListGpus();
  if (!gpus.ok()) {
    std::cout << "accelerators: none (" << gpus.status().message() << ")\n";
    return;
  }
  std::cout << "accelerators: " << gpus->size() << " GPU(s)";
  for (const runtime::GpuInfo& gpu : *gpus) {
    std::cout << (gpu.index == 0 ? ": " : ", ") << gpu.index << "=" << gpu.name;
  }
  std::cout << "\n";
}

void PrintVariable(const trainpkg::base::Environment& env, std::string_view name) {
  std::optional<std::string> value = env.Get(name);
  if (value.has_value()) {
    std::cout << name << "=" << *value << "\n";
  } else {
    std::cout << name << " not set\n";
  }
}

std::string ModelJson(const runtime::ClusterInfo& info, uint64_t shard_sum) {
  std::ostringstream fields;
  fields << "\"task_type\":\"" << info.task_type << "\",\"task_index\":" << info.task_index
         << ",\"rank\":" << info.rank << ",\"world_size\":" << info.world_size
         << ",\"shard_sum_of_squares\":" << shard_sum;
  std::ostringstream json;
  json << "{" << fields.str() << ",\"checksum\":\"fnv1a64:" << std::hex << Fnv1a(fields.str())
       << "\"}\n";
  return json.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("multiworker_hello: the chief/worker output rule on N replicas",
               "multiworker_hello");
  Flags flags;
  AddFlags(app, flags);
  if (std::optional<int> done = trainpkg::samples::ParseCommandLine(app, argc, argv)) return *done;
  const trainpkg::base::Environment& env = trainpkg::base::ProcessEnvironment();

  absl::StatusOr<runtime::ClusterInfo> info = runtime::ResolveClusterInfo(env);
  if (!info.ok()) {
    std::cerr << "multiworker_hello: " << info.status().message() << "\n";
    return 1;
  }
  std::cout << "source=" << info->source << " task=" << info->task_type << ":" << info->task_index
            << " rank=" << info->rank << " world_size=" << info->world_size
            << " chief=" << (info->is_chief ? "yes" : "no") << "\n";
  PrintAccelerators();
  PrintVariable(env, "CLUSTER_SPEC");
  PrintVariable(env, "TF_CONFIG");
  if (!info->in_collective()) {
    std::cout << info->task_type << " is outside the collective: nothing to compute or save\n";
    return 0;
  }

  std::string model_dir = flags.model_dir.empty()
                              ? trainpkg::jobspec::ReadVertexJobEnv(env).dirs.model_dir
                              : flags.model_dir;
  if (model_dir.empty()) {
    std::cerr << "multiworker_hello: no model directory: set AIP_MODEL_DIR (baseOutputDirectory "
                 "in the job) or pass --model_dir\n"
              << app.help();
    return 2;
  }

  uint64_t shard_sum = ShardSumOfSquares(info->rank, info->world_size);
  std::cout << "shard_sum_of_squares=" << shard_sum << " (terms i <= " << kTerms
            << " with i % world_size == rank; not combined across ranks)\n";

  runtime::ModelWriteOptions options = runtime::ModelWriteOptionsFromEnvironment(env);
  options.keep_worker_temp = options.keep_worker_temp || flags.keep_worker_temp;
  absl::StatusOr<runtime::ModelWriteDir> dir =
      runtime::ModelWriteDir::Create(model_dir, *info, options);
  if (!dir.ok()) {
    std::cerr << "multiworker_hello: " << dir.status().message() << "\n";
    return 1;
  }
  std::filesystem::path file = dir->path() / "model.json";
  std::ofstream out(file);
  out << ModelJson(*info, shard_sum);
  out.close();
  if (!out) {
    std::cerr << "multiworker_hello: writing " << file.string() << " failed\n";
    return 1;
  }
  std::cout << "wrote " << file.string() << "\n";
  if (absl::Status finished = dir->Finish(); !finished.ok()) {
    std::cerr << "multiworker_hello: " << finished.message() << "\n";
    return 1;
  }
  if (dir->is_worker_temp()) {
    std::cout << (options.keep_worker_temp ? "kept " : "removed ") << dir->path().string() << "\n";
  }
  return 0;
}
