// digits_multiworker: data-parallel training of a digits classifier on one
// process or on every worker of a job, with the same code.
//
//   digits_multiworker [--data=PATH] [--model=mlp|cnn] [--epochs=30]
//       [--global_batch_size=64] [--learning_rate=0.001] [--seed=42]
//       [--model_dir=DIR] [--checkpoint_dir=DIR] [--device=cpu|cuda]
//
// Each replica resolves its place in the job (ClusterInfo), loads the 8x8
// digits (--data, else $TRAINPKG_DATA_DIR/digits.csv.gz, else
// build/data/digits.csv.gz), takes the reference 80/20 split, and trains on
// its slice of every global batch (global_batch_source.h), so N workers see
// the global batches a single process sees. Validation runs on the held-out
// 20% each epoch. --device=cuda trains on the process's current CUDA device
// (the first one CUDA_VISIBLE_DEVICES shows; replicas may share one), with
// the gradients averaged through host memory by the same collective as on
// the CPU. Outputs (train/output_dirs.h): the model to --model_dir /
// AIP_MODEL_DIR (chief; workers to workertemp_<i>, removed), per-epoch
// backups to --checkpoint_dir / AIP_CHECKPOINT_DIR, TensorBoard scalars to
// AIP_TENSORBOARD_LOG_DIR, the held-out accuracy to the hypertune file
// (tag CLOUD_ML_HP_METRIC_TAG, default "accuracy"). The chief ends with
// mean_epoch_seconds=<wall time of an epoch's training, validation and
// cross-replica metrics, averaged over epochs 2..N> and, last,
// test_accuracy=<held-out accuracy after the last epoch>.
//
// Exit status: 0 on success, 1 when training or an output fails, 2 for a
// usage error.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "samples/common/flags.h"
#include "samples/digits_multiworker/digits_model.h"
#include "samples/digits_multiworker/global_batch_source.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/data/digits.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/nn/device.h"
#include "trainer_runtime/output_paths.h"
#include "trainer_runtime/train/backup_and_restore.h"
#include "trainer_runtime/train/callback.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/hypertune_callback.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"
#include "trainer_runtime/train/output_dirs.h"
#include "trainer_runtime/train/tensorboard_logger.h"

namespace {

namespace samples = ::trainpkg::samples;
namespace train = ::trainpkg::train;
namespace runtime = ::trainpkg::runtime;

struct Flags {
  std::string data;
  std::string model = "mlp";
  int epochs = 30;
  int64_t global_batch_size = 64;
  double learning_rate = 1e-3;
  uint64_t seed = 42;
  std::string model_dir;
  std::string checkpoint_dir;
  std::string device = "cpu";
};

// The flags, as Vertex passes hyperparameters (--name=value; --name value
// works too).
void AddFlags(CLI::App& app, Flags& flags) {
  app.add_option("--data", flags.data, "digits.csv.gz (default: $TRAINPKG_DATA_DIR/digits.csv.gz)");
  app.add_option("--model", flags.model, "the model")
      ->capture_default_str()
      ->check(CLI::IsMember({"mlp", "cnn"}));
  app.add_option("--epochs", flags.epochs, "epochs")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--global_batch_size", flags.global_batch_size,
                 "examples per step over all replicas")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--learning_rate", flags.learning_rate, "Adam's learning rate")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--seed", flags.seed, "initialisation and shuffling seed")->capture_default_str();
  app.add_option("--model_dir", flags.model_dir, "default $AIP_MODEL_DIR");
  app.add_option("--checkpoint_dir", flags.checkpoint_dir, "default $AIP_CHECKPOINT_DIR");
  app.add_option("--device", flags.device, "where the model trains")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
}

// Wall time of each epoch as the PyTorch peer of bench/collectives times
// its own: from the epoch's start to its metrics summed across replicas
// (training steps, validation and that sum; EpochLogs::seconds stops before
// the sum, which carries it), before any other callback (file outputs).
// Registered first, so its OnEpochEnd runs first.
class EpochClock final : public train::Callback {
 public:
  absl::Status OnEpochBegin(train::TrainContext& /*context*/, int /*epoch*/) override {
    start_ = absl::Now();
    return absl::OkStatus();
  }
  absl::Status OnEpochEnd(train::TrainContext& /*context*/,
                          const train::EpochLogs& /*logs*/) override {
    seconds_.push_back(absl::ToDoubleSeconds(absl::Now() - start_));
    return absl::OkStatus();
  }
  const std::vector<double>& seconds() const { return seconds_; }

 private:
  absl::Time start_;
  std::vector<double> seconds_;
};

// The chief's summary: mean epoch time by `clock` (without the first epoch,
// which warms up caches and the allocator, when there is more than one) and
// the held-out accuracy after the last epoch.
void PrintSummary(const train::History& history, const EpochClock& clock) {
  const std::vector<train::EpochLogs>& epochs = history.epochs;
  const std::vector<double>& times = clock.seconds();
  if (epochs.empty() || times.size() != epochs.size()) return;
  const size_t first = epochs.size() > 1 ? 1 : 0;
  double seconds = 0;
  for (size_t i = first; i < times.size(); ++i) seconds += times[i];
  std::cout << fmt::format("mean_epoch_seconds={:.4f} (epochs {}..{})\n",
                           seconds / static_cast<double>(times.size() - first),
                           history.initial_epoch + first + 1,
                           history.initial_epoch + epochs.size());
  std::cout << fmt::format("test_accuracy={:.4f}\n", epochs.back().val_accuracy.value_or(0));
}

absl::Status Run(const Flags& flags, const trainpkg::base::Environment& env) {
  TP_ASSIGN_OR_RETURN(runtime::ClusterInfo info, runtime::ResolveClusterInfo(env));
  std::cout << fmt::format("task={}:{} rank={} world_size={}\n", info.task_type, info.task_index,
                           info.rank, info.world_size);
  // What Vertex (or trainpkg run) gave this replica, as it came.
  for (const char* name : {"CLUSTER_SPEC", "TF_CONFIG"}) {
    std::cout << name << "=" << env.Get(name).value_or("(not set)") << "\n";
  }
  if (!info.in_collective()) {
    std::cout << info.task_type << " is outside the collective: nothing to train\n";
    return absl::OkStatus();
  }
  TP_ASSIGN_OR_RETURN(samples::DigitsModelKind kind, samples::ParseDigitsModelKind(flags.model));

  const std::filesystem::path path = flags.data.empty()
                                         ? trainpkg::data::DigitsPath(env, "build/data")
                                         : std::filesystem::path(flags.data);
  TP_ASSIGN_OR_RETURN(trainpkg::data::Dataset digits, trainpkg::data::LoadDigits(path));
  TP_ASSIGN_OR_RETURN(trainpkg::data::TrainTestSplit split, trainpkg::data::SplitDigits(digits));
  samples::GlobalBatchOptions batches;
  batches.global_batch_size = flags.global_batch_size;
  batches.rank = info.rank;
  batches.world_size = info.world_size;
  batches.seed = flags.seed;
  batches.batch_element_shape = samples::DigitsInputShape(kind);
  TP_ASSIGN_OR_RETURN(
      std::unique_ptr<samples::GlobalBatchSource> train_source,
      samples::GlobalBatchSource::Create(
          std::make_shared<const trainpkg::data::Dataset>(std::move(split.train)), batches));
  batches.training = false;
  TP_ASSIGN_OR_RETURN(
      std::unique_ptr<samples::GlobalBatchSource> test_source,
      samples::GlobalBatchSource::Create(
          std::make_shared<const trainpkg::data::Dataset>(std::move(split.test)), batches));

  TP_ASSIGN_OR_RETURN(trainpkg::nn::Sequential model, samples::BuildDigitsModel(kind, flags.seed));
  if (flags.device == "cuda") {
    if (absl::Status moved = model.MoveTo(trainpkg::nn::Device::kCuda); !moved.ok()) {
      return absl::FailedPreconditionError("--device=cuda: " + std::string(moved.message()));
    }
  }
  std::cout << "device=" << trainpkg::nn::DeviceName(model.device()) << "\n";
  trainpkg::nn::AdamOptions adam;
  adam.learning_rate = static_cast<float>(flags.learning_rate);
  TP_ASSIGN_OR_RETURN(std::unique_ptr<trainpkg::nn::Adam> optimizer,
                      trainpkg::nn::Adam::Create(adam));

  train::OutputDirFlags dir_flags;
  dir_flags.model_dir = flags.model_dir;
  dir_flags.checkpoint_dir = flags.checkpoint_dir;
  const train::OutputDirs dirs = train::ResolveOutputDirs(env, dir_flags);
  const runtime::ModelWriteOptions write = runtime::ModelWriteOptionsFromEnvironment(env);

  train::FitOptions options;
  options.epochs = flags.epochs;
  options.progress = &std::cout;
  EpochClock clock;  // first: its epochs end before the file outputs
  options.callbacks.push_back(&clock);
  std::unique_ptr<train::BackupAndRestore> backup;
  if (!dirs.checkpoint_dir.empty()) {
    train::BackupOptions backup_options;
    backup_options.write = write;
    TP_ASSIGN_OR_RETURN(backup,
                        train::BackupAndRestore::Create(dirs.checkpoint_dir, info, backup_options));
    options.callbacks.push_back(backup.get());
  }
  std::unique_ptr<train::TensorBoardLogger> tensorboard;
  if (!dirs.tensorboard_dir.empty()) {
    TP_ASSIGN_OR_RETURN(tensorboard, train::TensorBoardLogger::Create(dirs.tensorboard_dir));
    options.callbacks.push_back(tensorboard.get());
  }
  const std::string tag = env.Get("CLOUD_ML_HP_METRIC_TAG").value_or("");
  TP_ASSIGN_OR_RETURN(
      std::unique_ptr<train::HypertuneCallback> hypertune,
      train::HypertuneCallback::Create(train::HypertuneReporter::FromEnvironment(env),
                                       "val_accuracy", tag.empty() ? "accuracy" : tag));
  options.callbacks.push_back(hypertune.get());

  TP_ASSIGN_OR_RETURN(std::unique_ptr<train::Strategy> strategy,
                      train::MakeStrategy(info, train::StrategyOptions{}));
  absl::StatusOr<train::History> history =
      train::Fit(*strategy, model, *optimizer, *train_source, test_source.get(), options);
  if (!history.ok()) {
    strategy->Shutdown().IgnoreError();  // the Fit error is the one to report
    return history.status();
  }
  if (!dirs.model_dir.empty()) {
    TP_RETURN_IF_ERROR(train::SaveModelToDir(model, dirs.model_dir, info, write));
    if (info.is_chief) {
      std::cout << "saved "
                << (runtime::LocalPathForUri(dirs.model_dir).value_or("") / train::kModelFileName)
                       .string()
                << "\n";
    }
  }
  TP_RETURN_IF_ERROR(strategy->Shutdown());
  if (info.is_chief) PrintSummary(*history, clock);
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("digits_multiworker: data-parallel training of a digits classifier",
               "digits_multiworker");
  Flags flags;
  AddFlags(app, flags);
  if (std::optional<int> done = trainpkg::samples::ParseCommandLine(app, argc, argv)) return *done;
  absl::Status status = Run(flags, trainpkg::base::ProcessEnvironment());
  if (!status.ok()) {
    std::cerr << "digits_multiworker: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
