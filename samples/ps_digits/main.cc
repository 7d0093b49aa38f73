// ps_digits: parameter-server training of a digits MLP (TF's
// ParameterServerStrategy layout): one program, four roles, chosen by the
// task type the launcher gives (TF_CONFIG / CLUSTER_SPEC: pool 0 chief,
// 1 worker, 2 ps, 3 evaluator).
//
//   ps_digits --steps_per_epoch=N [--epochs=20] [--batch_size=32]
//       [--learning_rate=0.001] [--checkpoint_every=0] [--max_shard_bytes=0]
//       [--seed=42] [--data=PATH] [--checkpoint_dir=DIR] [--model_dir=DIR]
//       [--tensorboard_dir=DIR] [--metrics_file=PATH]
//
//   ps         hosts its shards of the variables; Adam is applied there.
//   worker     trains on its own shard of the training split, one step per
//              call from the chief (pull, forward/backward, push).
//   chief      schedules steps_per_epoch * epochs steps on the workers,
//              checkpoints to <checkpoint_dir>/ps_digits every
//              checkpoint_every steps (default: every epoch), resumes from
//              the newest one on a rerun; prints test_accuracy=<x> on the
//              held-out 20% at the end and saves the model to model_dir.
//   evaluator  evaluates each checkpoint on the held-out 20%: one JSON line
//              per checkpoint in metrics_file (default
//              <checkpoint_dir>/ps_digits/eval_metrics.jsonl), TensorBoard
//              scalars in <tensorboard_dir>/eval.
// Directories default to AIP_CHECKPOINT_DIR, AIP_MODEL_DIR and
// AIP_TENSORBOARD_LOG_DIR (train/output_dirs.h). Data: --data, else
// $TRAINPKG_DATA_DIR/digits.csv.gz, else build/data/digits.csv.gz.
//
// Exit status: 0 on success, 1 when training fails, 2 for a usage error.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "samples/common/flags.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/data/digits.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/output_paths.h"
#include "trainer_runtime/ps/dataset_batches.h"
#include "trainer_runtime/ps/evaluate_model.h"
#include "trainer_runtime/ps/evaluator.h"
#include "trainer_runtime/ps/parameter_server.h"
#include "trainer_runtime/ps/run_chief.h"
#include "trainer_runtime/ps/training_step.h"
#include "trainer_runtime/ps/worker_server.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/output_dirs.h"

namespace {

namespace fs = std::filesystem;
using namespace trainpkg;  // NOLINT: a sample's main

struct Flags {
  int64_t steps_per_epoch = 0;
  int64_t epochs = 20;
  int64_t batch_size = 32;
  float learning_rate = 0.001f;
  int64_t checkpoint_every = 0;
  int64_t max_shard_bytes = 0;
  int64_t seed = 42;
  std::string data;
  std::string metrics_file;
  train::OutputDirFlags dirs;
};

void AddFlags(CLI::App& app, Flags& flags) {
  app.add_option("--steps_per_epoch", flags.steps_per_epoch,
                 "steps per epoch; required with parameter servers (workers read endless "
                 "per-worker datasets, as with TF's ParameterServerStrategy), e.g. 23")
      ->required()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--epochs", flags.epochs, "epochs")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--batch_size", flags.batch_size, "per-worker batch size")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--learning_rate", flags.learning_rate, "Adam's learning rate")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--checkpoint_every", flags.checkpoint_every,
                 "steps between checkpoints (0: every epoch)")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero(/*or_equal=*/true));
  app.add_option("--max_shard_bytes", flags.max_shard_bytes,
                 "largest variable shard on a ps (0: one shard per variable)")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero(/*or_equal=*/true));
  app.add_option("--seed", flags.seed, "initialisation and shuffling seed")->capture_default_str();
  app.add_option("--data", flags.data, "digits.csv.gz (default: $TRAINPKG_DATA_DIR/digits.csv.gz)");
  app.add_option("--metrics_file", flags.metrics_file,
                 "evaluator's metrics (default <checkpoint_dir>/ps_digits/eval_metrics.jsonl)");
  app.add_option("--checkpoint_dir", flags.dirs.checkpoint_dir, "default $AIP_CHECKPOINT_DIR");
  app.add_option("--model_dir", flags.dirs.model_dir, "default $AIP_MODEL_DIR");
  app.add_option("--tensorboard_dir", flags.dirs.tensorboard_dir,
                 "default $AIP_TENSORBOARD_LOG_DIR");
}

absl::StatusOr<nn::Sequential> BuildMlp(uint64_t seed) {
  nn::Sequential model;
  TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(64, 256)));
  TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
  TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(256, 128)));
  TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
  TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(128, 10)));
  model.InitializeParameters(seed);
  return model;
}

absl::StatusOr<data::TrainTestSplit> LoadData(const Flags& flags) {
  const base::Environment& env = base::ProcessEnvironment();
  const fs::path path =
      flags.data.empty() ? data::DigitsPath(env, "build/data") : fs::path(flags.data);
  TP_ASSIGN_OR_RETURN(data::Dataset digits, data::LoadDigits(path));
  return data::SplitDigits(digits);
}

absl::StatusOr<std::unique_ptr<ps::VariableClient>> Variables(nn::Sequential& model,
                                                              const runtime::ClusterInfo& info,
                                                              const Flags& flags) {
  std::unique_ptr<ps::Partitioner> partitioner;
  if (flags.max_shard_bytes > 0) {
    TP_ASSIGN_OR_RETURN(partitioner, ps::MaxSizePartitioner(flags.max_shard_bytes));
  }
  TP_ASSIGN_OR_RETURN(
      ps::ShardPlan plan,
      ps::ShardPlan::Create(ps::ShardPlan::VariablesOf(model.parameters()), partitioner.get(),
                            static_cast<int>(info.ps_addresses.size())));
  ps::VariableClientOptions options;
  options.job_secret = info.job_secret;
  return ps::VariableClient::Create(std::move(plan), info.ps_addresses, std::move(options));
}

fs::path LocalDir(const std::string& uri) {
  if (uri.empty()) return {};
  absl::StatusOr<fs::path> path = runtime::LocalPathForUri(uri);
  return path.ok() ? *path : fs::path(uri);
}

absl::Status RunPs(const runtime::ClusterInfo& info) {
  TP_ASSIGN_OR_RETURN(auto server, ps::ParameterServer::Start(
                                       info.ps_addresses.at(static_cast<size_t>(info.task_index)),
                                       info.job_secret));
  std::cout << "ps " << info.task_index << " serving on " << server->address() << std::endl;
  server->WaitForShutdown();
  return absl::OkStatus();
}

absl::Status RunWorker(const runtime::ClusterInfo& info, const Flags& flags) {
  TP_ASSIGN_OR_RETURN(nn::Sequential model, BuildMlp(static_cast<uint64_t>(flags.seed)));
  TP_ASSIGN_OR_RETURN(auto variables, Variables(model, info, flags));
  TP_ASSIGN_OR_RETURN(data::TrainTestSplit split, LoadData(flags));
  const int64_t num_workers = static_cast<int64_t>(info.worker_addresses.size()) - 1;
  const int64_t index = info.rank - 1;
  ps::DatasetBatches batches(split.train.Shard(index, num_workers), flags.batch_size,
                             static_cast<uint64_t>(flags.seed) + static_cast<uint64_t>(index));
  TP_ASSIGN_OR_RETURN(
      auto server, ps::WorkerServer::Start(
                       info.worker_addresses.at(static_cast<size_t>(info.rank)),
                       [&](int64_t) { return ps::TrainingStep(model, *variables, batches.Next()); },
                       info.job_secret));
  std::cout << "worker " << index << " serving on " << server->address() << std::endl;
  server->WaitForShutdown();
  return absl::OkStatus();
}

absl::Status RunChiefRole(const runtime::ClusterInfo& info, const Flags& flags,
                          const train::OutputDirs& dirs) {
  TP_ASSIGN_OR_RETURN(nn::Sequential model, BuildMlp(static_cast<uint64_t>(flags.seed)));
  TP_ASSIGN_OR_RETURN(auto variables, Variables(model, info, flags));
  TP_ASSIGN_OR_RETURN(data::TrainTestSplit split, LoadData(flags));
  std::vector<std::unique_ptr<ps::StepRunner>> workers;
  for (size_t r = 1; r < info.worker_addresses.size(); ++r) {
    auto runner = std::make_unique<ps::GrpcStepRunner>(
        fmt::format("worker {} ({})", r - 1, info.worker_addresses[r]), info.worker_addresses[r],
        absl::Seconds(30), info.job_secret);
    TP_RETURN_IF_ERROR(runner->WaitUntilReady(absl::Seconds(60)));
    workers.push_back(std::move(runner));
  }
  if (workers.empty()) {
    return absl::InvalidArgumentError(
        "parameter-server training needs at least one worker (pool 1)");
  }
  ps::ChiefOptions options;
  options.steps_per_epoch = flags.steps_per_epoch;
  options.epochs = flags.epochs;
  options.checkpoint_every = flags.checkpoint_every;
  options.optimizer.kind = "adam";
  options.optimizer.adam.learning_rate = flags.learning_rate;
  options.checkpoint_dir = LocalDir(dirs.checkpoint_dir) / "ps_digits";
  TP_ASSIGN_OR_RETURN(ps::ChiefSummary summary,
                      ps::RunChief(model, *variables, std::move(workers), options));
  TP_ASSIGN_OR_RETURN(ps::EvalMetrics test, ps::EvaluateModel(model, split.test));
  if (!dirs.model_dir.empty()) {
    TP_RETURN_IF_ERROR(train::SaveModel(model, LocalDir(dirs.model_dir) / train::kModelFileName));
  }
  std::cout << fmt::format("start_step={} final_step={} rescheduled_steps={}\n", summary.start_step,
                           summary.final_step, summary.rescheduled_steps);
  std::cout << fmt::format("test_accuracy={:.4f}", test.accuracy) << std::endl;
  return absl::OkStatus();
}

absl::Status RunEvaluatorRole(const Flags& flags, const train::OutputDirs& dirs) {
  TP_ASSIGN_OR_RETURN(nn::Sequential model, BuildMlp(static_cast<uint64_t>(flags.seed)));
  TP_ASSIGN_OR_RETURN(data::TrainTestSplit split, LoadData(flags));
  if (dirs.checkpoint_dir.empty()) {
    return absl::InvalidArgumentError("the evaluator needs --checkpoint_dir or AIP_CHECKPOINT_DIR");
  }
  ps::EvaluatorOptions options;
  options.checkpoint_dir = LocalDir(dirs.checkpoint_dir) / "ps_digits";
  options.metrics_file = flags.metrics_file.empty() ? options.checkpoint_dir / "eval_metrics.jsonl"
                                                    : fs::path(flags.metrics_file);
  if (!dirs.tensorboard_dir.empty())
    options.tensorboard_dir = LocalDir(dirs.tensorboard_dir) / "eval";
  TP_ASSIGN_OR_RETURN(
      int evaluated,
      ps::RunEvaluator(
          options, [&](const train::TensorBundle& checkpoint) -> absl::StatusOr<ps::EvalMetrics> {
            TP_RETURN_IF_ERROR(train::RestoreModel(checkpoint, model, "checkpoint"));
            return ps::EvaluateModel(model, split.test);
          }));
  std::cout << "evaluated_checkpoints=" << evaluated << std::endl;
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("ps_digits: parameter-server training of a digits MLP", "ps_digits");
  Flags flags;
  AddFlags(app, flags);
  if (std::optional<int> done = trainpkg::samples::ParseCommandLine(app, argc, argv)) return *done;
  absl::StatusOr<runtime::ClusterInfo> info =
      runtime::ResolveClusterInfo(base::ProcessEnvironment());
  if (!info.ok()) {
    std::cerr << "ps_digits: " << info.status().message() << "\n";
    return 2;
  }
  const train::OutputDirs dirs = train::ResolveOutputDirs(base::ProcessEnvironment(), flags.dirs);
  absl::Status status;
  if (info->task_type == "ps") {
    status = RunPs(*info);
  } else if (info->task_type == "evaluator") {
    status = RunEvaluatorRole(flags, dirs);
  } else if (info->ps_addresses.empty()) {
    status = absl::InvalidArgumentError(
        "no parameter servers in the cluster (TF_CONFIG \"ps\" / workerpool2); ps_digits needs "
        "them");
  } else if (info->is_chief) {
    status = RunChiefRole(*info, flags, dirs);
  } else {
    status = RunWorker(*info, flags);
  }
  if (!status.ok()) {
    std::cerr << "ps_digits (" << info->task_type << " " << info->task_index
              << "): " << status.message() << "\n";
    return 1;
  }
  return 0;
}
