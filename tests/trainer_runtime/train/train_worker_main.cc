// One replica of the fault-tolerance test: resolves its ClusterInfo from the
// Vertex env, trains an MLP on synthetic data with BackupAndRestore to
// AIP_CHECKPOINT_DIR, and saves to AIP_MODEL_DIR. Prints "starting at epoch
// N", "epoch N done" and "rank R done"; exit 1 with the error on stderr.
//
//   train_test_worker <epochs> <pause_ms_per_step>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/time/clock.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "tests/trainer_runtime/train/test_job.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/train/backup_and_restore.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"
#include "trainer_runtime/train/output_dirs.h"

namespace trainpkg::train {
namespace {

class SlowSource final : public BatchSource {
 public:
  SlowSource(BatchSource& inner, int pause_ms) : inner_(inner), pause_ms_(pause_ms) {}
  int64_t num_batches() const override { return inner_.num_batches(); }
  absl::Status StartEpoch(int epoch) override { return inner_.StartEpoch(epoch); }
  absl::StatusOr<bool> Next(Batch& batch) override {
    absl::SleepFor(absl::Milliseconds(pause_ms_));
    return inner_.Next(batch);
  }

 private:
  BatchSource& inner_;
  int pause_ms_;
};

class PrintProgress final : public Callback {
 public:
  absl::Status OnTrainBegin(TrainContext& context) override {
    fmt::print("starting at epoch {}\n", context.initial_epoch);
    std::fflush(stdout);
    return absl::OkStatus();
  }
  absl::Status OnEpochEnd(TrainContext&, const EpochLogs& logs) override {
    fmt::print("epoch {} done\n", logs.epoch);
    std::fflush(stdout);
    return absl::OkStatus();
  }
};

absl::Status Run(int epochs, int pause_ms) {
  const base::Environment& env = base::ProcessEnvironment();
  TP_ASSIGN_OR_RETURN(runtime::ClusterInfo info, runtime::ResolveClusterInfo(env));
  StrategyOptions options;
  options.coordination = testing::FastCoordination();
  options.coordination.heartbeat_timeout = absl::Seconds(1);
  options.collective_timeout = absl::Seconds(10);
  TP_ASSIGN_OR_RETURN(std::unique_ptr<Strategy> strategy, MakeStrategy(info, options));
  const OutputDirs dirs = ResolveOutputDirs(env, {});
  const auto data = testing::MakeDataset(384, 8, 4, 3);
  testing::ShardedSource shard(data, 16 * strategy->num_replicas(), strategy->rank(),
                               strategy->num_replicas(), 1);
  SlowSource train(shard, pause_ms);
  nn::Sequential model = testing::MakeMlp(8, 32, 4, 5);
  TP_ASSIGN_OR_RETURN(auto adam, nn::Adam::Create({}));
  TP_ASSIGN_OR_RETURN(auto backup, BackupAndRestore::Create(dirs.checkpoint_dir, info));
  PrintProgress progress;
  FitOptions fit;
  fit.epochs = epochs;
  fit.callbacks = {backup.get(), &progress};
  fit.progress = &std::cout;
  absl::Status status = Fit(*strategy, model, *adam, train, nullptr, fit).status();
  if (status.ok()) status = SaveModelToDir(model, dirs.model_dir, info);
  absl::Status shutdown = strategy->Shutdown();
  return status.ok() ? shutdown : status;
}

}  // namespace
}  // namespace trainpkg::train

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: train_test_worker <epochs> <pause_ms_per_step>\n");
    return 2;
  }
  absl::Status status = trainpkg::train::Run(std::atoi(argv[1]), std::atoi(argv[2]));
  if (!status.ok()) {
    fmt::print(stderr, "error: {}\n", std::string(status.message()));
    return 1;
  }
  fmt::print("done\n");
  return 0;
}
