#include "trainer_runtime/train/backup_and_restore.h"

#include <map>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "base/file_util.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/train/model_file.h"

namespace trainpkg::train {
namespace {

constexpr std::string_view kOptimizerPrefix = "optimizer/";

TensorBundle CheckpointBundle(TrainContext& context, int epoch) {
  TensorBundle bundle = ModelBundle(context.model);
  bundle.kind = "checkpoint";
  const auto& state = context.optimizer.state();
  for (size_t i = 0; i < state.size(); ++i) {
    bundle.tensors.push_back({fmt::format("{}{}", kOptimizerPrefix, i),
                              {static_cast<int64_t>(state[i].size())},
                              state[i]});
  }
  bundle.counters["epoch"] = epoch;
  bundle.counters["optimizer_iterations"] = context.optimizer.iterations();
  bundle.counters["optimizer_buffers"] = static_cast<int64_t>(state.size());
  return bundle;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BackupAndRestore>> BackupAndRestore::Create(
    std::string_view backup_dir, const runtime::ClusterInfo& info, BackupOptions options) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path root, runtime::LocalPathForUri(backup_dir));
  return std::unique_ptr<BackupAndRestore>(new BackupAndRestore(std::move(root), info, options));
}

absl::Status BackupAndRestore::OnTrainBegin(TrainContext& context) {
  auto bundle = ReadTensorBundle(file_);
  if (absl::IsNotFound(bundle.status())) return absl::OkStatus();
  if (!bundle.ok()) return bundle.status();
  const std::string where = file_.string();
  if (bundle->kind != "checkpoint" || !bundle->counters.contains("epoch") ||
      !bundle->counters.contains("optimizer_iterations") ||
      !bundle->counters.contains("optimizer_buffers")) {
    return absl::FailedPreconditionError(
        fmt::format("{}: not a checkpoint (kind '{}'; want kind 'checkpoint' with counters epoch, "
                    "optimizer_iterations, optimizer_buffers)",
                    where, bundle->kind));
  }
  std::map<std::string, std::vector<float>*> by_name;
  for (NamedTensor& t : bundle->tensors) by_name[t.name] = &t.values;
  std::vector<std::vector<float>> state;
  for (int64_t i = 0; i < bundle->counters["optimizer_buffers"]; ++i) {
    auto it = by_name.find(fmt::format("{}{}", kOptimizerPrefix, i));
    if (it == by_name.end()) {
      return absl::FailedPreconditionError(
          fmt::format("{}: optimizer buffer {} is missing", where, i));
    }
    state.push_back(std::move(*it->second));
  }
  const std::vector<nn::Parameter*>& parameters = context.model.parameters();
  if (!state.empty() && state.size() != parameters.size()) {
    return absl::FailedPreconditionError(
        fmt::format("{}: optimizer state for {} parameters, the model has {}", where, state.size(),
                    parameters.size()));
  }
  for (size_t i = 0; i < state.size(); ++i) {
    const size_t want = static_cast<size_t>(parameters[i]->value.num_elements()) *
                        static_cast<size_t>(context.optimizer.slots());
    if (state[i].size() != want) {
      return absl::FailedPreconditionError(fmt::format(
          "{}: optimizer buffer {} ({}) has {} values; this optimizer needs {} (another "
          "optimizer?)",
          where, i, parameters[i]->name, state[i].size(), want));
    }
  }
  // Everything is checked before anything changes (RestoreModel changes
  // nothing when it fails).
  TP_RETURN_IF_ERROR(RestoreModel(*bundle, context.model, where));
  TP_RETURN_IF_ERROR(
      context.optimizer.RestoreState(bundle->counters["optimizer_iterations"], std::move(state)));
  context.initial_epoch = static_cast<int>(bundle->counters["epoch"]) + 1;
  TP_LOG(INFO, "{}: resuming at epoch {}", where, context.initial_epoch);
  return absl::OkStatus();
}

absl::Status BackupAndRestore::OnEpochEnd(TrainContext& context, const EpochLogs& logs) {
  TP_ASSIGN_OR_RETURN(
      runtime::ModelWriteDir dir,
      runtime::ModelWriteDir::Create((root_ / "chief").string(), info_, options_.write));
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(
      dir.path() / file_.filename(), EncodeTensorBundle(CheckpointBundle(context, logs.epoch))));
  return dir.Finish();
}

absl::Status BackupAndRestore::OnTrainEnd(TrainContext& context, const History& /*history*/) {
  if (!options_.delete_backup) return absl::OkStatus();
  // Every replica must be past its last save (a worker's temp directory
  // lives inside <backup_dir>/chief) before the chief deletes the backup:
  // a gather serves as the barrier.
  const double done = 1;
  TP_RETURN_IF_ERROR(context.strategy.GatherFromReplicas({&done, 1}).status());
  if (!context.strategy.is_chief()) return absl::OkStatus();
  std::error_code error;
  std::filesystem::remove_all(root_ / "chief", error);
  if (error) {
    return base::ErrnoToStatus(error.value(),
                               fmt::format("deleting the backup {}", (root_ / "chief").string()));
  }
  if (std::filesystem::is_empty(root_, error)) std::filesystem::remove(root_, error);
  return absl::OkStatus();
}

}  // namespace trainpkg::train
