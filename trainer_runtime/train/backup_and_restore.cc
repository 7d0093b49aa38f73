#include "trainer_runtime/train/backup_and_restore.h"

#include <bit>
#include <cstdint>
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
constexpr std::string_view kRngPrefix = "rng/";

std::string RngCounter(const nn::Layer& layer, std::string_view what) {
  return fmt::format("{}{}/{}", kRngPrefix, layer.name(), what);
}

void AddRngStates(nn::Sequential& model, TensorBundle& bundle) {
  for (size_t i = 0; i < model.num_layers(); ++i) {
    const nn::Layer& layer = model.layer(i);
    const std::vector<uint64_t> state = layer.RngState();
    if (state.empty()) continue;
    bundle.counters[RngCounter(layer, "size")] = static_cast<int64_t>(state.size());
    for (size_t k = 0; k < state.size(); ++k) {
      bundle.counters[RngCounter(layer, std::to_string(k))] = std::bit_cast<int64_t>(state[k]);
    }
  }
}

// The saved generator state of every layer that has one, by layer index;
// FailedPrecondition when a saved state does not fit the layer. Layers
// without a saved state are left out (checkpoints of older builds).
absl::StatusOr<std::map<size_t, std::vector<uint64_t>>> SavedRngStates(const TensorBundle& bundle,
                                                                       nn::Sequential& model,
                                                                       const std::string& where) {
  std::map<size_t, std::vector<uint64_t>> states;
  for (size_t i = 0; i < model.num_layers(); ++i) {
    const nn::Layer& layer = model.layer(i);
    const size_t want = layer.RngState().size();
    auto size = bundle.counters.find(RngCounter(layer, "size"));
    if (size == bundle.counters.end()) {
      if (want > 0) {
        TP_LOG(WARNING, "{}: no generator state for layer {}; it keeps its seeded generator", where,
               layer.name());
      }
      continue;
    }
    if (static_cast<size_t>(size->second) != want) {
      return absl::FailedPreconditionError(fmt::format(
          "{}: layer {} has a generator state of {} numbers; the model's layer needs {}", where,
          layer.name(), size->second, want));
    }
    std::vector<uint64_t>& state = states[i];
    for (size_t k = 0; k < want; ++k) {
      auto value = bundle.counters.find(RngCounter(layer, std::to_string(k)));
      if (value == bundle.counters.end()) {
        return absl::FailedPreconditionError(fmt::format(
            "{}: counter {} of layer {}'s generator state is missing", where, k, layer.name()));
      }
      state.push_back(std::bit_cast<uint64_t>(value->second));
    }
  }
  return states;
}

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
  AddRngStates(context.model, bundle);
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
  TP_ASSIGN_OR_RETURN(auto rng_states, SavedRngStates(*bundle, context.model, where));
  // Everything is checked before anything changes (RestoreModel changes
  // nothing when it fails).
  TP_RETURN_IF_ERROR(RestoreModel(*bundle, context.model, where));
  for (const auto& [layer, saved] : rng_states) {
    absl::Status restored = context.model.layer(layer).RestoreRngState(saved);
    if (!restored.ok()) {
      return absl::FailedPreconditionError(
          fmt::format("{}: {}", where, std::string(restored.message())));
    }
  }
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
