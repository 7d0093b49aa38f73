#include "trainer_runtime/ps/ps_checkpoint.h"

#include <cstring>
#include <map>
#include <string>

#include "base/check.h"
#include "fmt/format.h"
#include "trainer_runtime/train/model_file.h"

namespace trainpkg::ps {
namespace {

std::string SlotName(const std::string& variable, size_t k) {
  return fmt::format("{}/optimizer_slot_{}", variable, k);
}

std::string IterationsName(const Shard& shard) {
  // Per shard, by name: each shard's optimizer counts its own updates, and a
  // checkpoint read with another partitioning misses these names and is
  // refused instead of restored wrongly.
  return fmt::format("optimizer_iterations/{}", shard.name);
}

}  // namespace

train::TensorBundle MakePsCheckpoint(nn::Sequential& model, const ShardPlan& plan,
                                     const VariableState& state, int64_t step) {
  const auto& params = model.parameters();
  TP_CHECK(params.size() == state.values.size(), "{} parameters, state of {}", params.size(),
           state.values.size());
  for (size_t v = 0; v < params.size(); ++v) {
    std::span<float> dest = params[v]->value.values();
    TP_CHECK(dest.size() == state.values[v].size(), "{}: {} values, state has {}", params[v]->name,
             dest.size(), state.values[v].size());
    std::memcpy(dest.data(), state.values[v].data(), dest.size() * sizeof(float));
  }
  // The values go through the model so a checkpoint holds the variables
  // under the same names and shapes as a saved model, plus the optimizer's
  // slots and counters.
  train::TensorBundle bundle = train::ModelBundle(model);
  bundle.kind = "checkpoint";
  for (size_t v = 0; v < state.slots.size(); ++v) {
    for (size_t k = 0; k < state.slots[v].size(); ++k) {
      bundle.tensors.push_back(
          {SlotName(plan.variables()[v].name, k), plan.variables()[v].shape, state.slots[v][k]});
    }
  }
  bundle.counters["step"] = step;
  for (const Shard& shard : plan.shards()) {
    bundle.counters[IterationsName(shard)] = state.iterations[static_cast<size_t>(shard.id)];
  }
  return bundle;
}

absl::StatusOr<RestoredCheckpoint> ReadPsCheckpoint(const train::TensorBundle& bundle,
                                                    const ShardPlan& plan, std::string_view where) {
  std::map<std::string, const train::NamedTensor*> tensors;
  for (const train::NamedTensor& t : bundle.tensors) tensors[t.name] = &t;
  auto step = bundle.counters.find("step");
  if (bundle.kind != "checkpoint" || step == bundle.counters.end()) {
    return absl::FailedPreconditionError(
        fmt::format("{}: not a parameter-server checkpoint (kind {}, no \"step\" counter)", where,
                    bundle.kind));
  }
  RestoredCheckpoint out;
  out.step = step->second;
  for (const VariableSpec& var : plan.variables()) {
    auto it = tensors.find(var.name);
    if (it == tensors.end() || it->second->shape != var.shape) {
      return absl::FailedPreconditionError(
          fmt::format("{}: variable {} {} is {}", where, var.name, nn::ShapeToString(var.shape),
                      it == tensors.end() ? std::string("missing")
                                          : "of shape " + nn::ShapeToString(it->second->shape)));
    }
    out.state.values.push_back(it->second->values);
    std::vector<std::vector<float>> slots;
    for (size_t k = 0;; ++k) {
      auto slot = tensors.find(SlotName(var.name, k));
      if (slot == tensors.end() || slot->second->shape != var.shape) break;
      slots.push_back(slot->second->values);
    }
    out.state.slots.push_back(std::move(slots));
  }
  for (const Shard& shard : plan.shards()) {
    auto it = bundle.counters.find(IterationsName(shard));
    if (it == bundle.counters.end()) {
      return absl::FailedPreconditionError(
          fmt::format("{}: no optimizer iterations for shard {}; the checkpoint was made with "
                      "another partitioning or number of ps",
                      where, shard.name));
    }
    out.state.iterations.push_back(it->second);
  }
  return out;
}

}  // namespace trainpkg::ps
