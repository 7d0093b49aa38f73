#include "trainer_runtime/ps/parameter_store.h"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "base/check.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/ps/internal/element_range.h"

namespace trainpkg::ps {

namespace {

// The machine's physical memory: no task can hold more, so shards asking
// for more are refused before anything is allocated.
int64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max();
  if (pages > std::numeric_limits<int64_t>::max() / page_size) {
    return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(pages) * page_size;
}

}  // namespace

ParameterStore::ParameterStore() : ParameterStore(PhysicalMemoryBytes()) {}

absl::Status ParameterStore::Configure(std::vector<ShardDef> shards,
                                       const OptimizerConfig& config) {
  std::lock_guard<std::mutex> lock(mu_);
  // A second Configure with the same shards (a chief that restarted while the
  // ps tasks kept running) keeps the values they hold; shards_ is set once,
  // so Entry pointers stay valid for the store's life.
  if (!shards_.empty()) {
    bool same = shards.size() == shards_.size();
    for (size_t i = 0; same && i < shards.size(); ++i) {
      auto it = shards_.find(shards[i].id);
      same = it != shards_.end() && it->second->def.name == shards[i].name &&
             it->second->def.size == shards[i].size;
    }
    if (same) return absl::OkStatus();
    return absl::FailedPreconditionError(
        fmt::format("parameter server already holds {} other shards; a job's ps serves one model",
                    shards_.size()));
  }
  std::map<int, std::unique_ptr<Entry>> made;
  // Floats the shards need, values and optimizer slots together, counted
  // so that no product or sum overflows.
  const int64_t max_floats = max_bytes_ / static_cast<int64_t>(sizeof(float));
  int64_t floats = 0;
  for (ShardDef& def : shards) {
    if (def.size < 0 || made.count(def.id) != 0) {
      return absl::InvalidArgumentError(fmt::format(
          "shard {} ({}): duplicate id or negative size {}", def.id, def.name, def.size));
    }
    auto entry = std::make_unique<Entry>();
    TP_ASSIGN_OR_RETURN(entry->optimizer, MakeOptimizer(config));
    const int64_t copies = 1 + entry->optimizer->slots();
    if (def.size > (max_floats - floats) / copies) {
      return absl::ResourceExhaustedError(fmt::format(
          "shard {} ({}) of {} values: this parameter server's shards would need more than its "
          "{} bytes of memory (values plus {} optimizer slot(s) per value)",
          def.id, def.name, def.size, max_bytes_, copies - 1));
    }
    floats += def.size * copies;
    entry->parameter = std::make_unique<nn::Parameter>(def.name, nn::Shape{def.size});
    entry->def = std::move(def);
    made.emplace(entry->def.id, std::move(entry));
  }
  shards_ = std::move(made);
  return absl::OkStatus();
}

absl::StatusOr<ParameterStore::Entry*> ParameterStore::Find(int shard) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (shards_.empty()) {
    return absl::FailedPreconditionError(
        "parameter server not configured yet (the chief configures it before any step)");
  }
  auto it = shards_.find(shard);
  if (it == shards_.end()) {
    return absl::InvalidArgumentError(
        fmt::format("shard {} is not on this parameter server", shard));
  }
  return it->second.get();
}

absl::StatusOr<int64_t> ParameterStore::ShardSize(int shard) const {
  TP_ASSIGN_OR_RETURN(Entry * entry, Find(shard));
  return entry->def.size;
}

void ParameterStore::EnsureState(Entry& entry, int slots) {
  if (!entry.optimizer->state().empty()) return;
  const int64_t n = entry.def.size;
  std::vector<std::vector<float>> state(1, std::vector<float>(static_cast<size_t>(n * slots)));
  absl::Status restored =
      entry.optimizer->RestoreState(entry.optimizer->iterations(), std::move(state));
  TP_CHECK(restored.ok(), "{}", restored.ToString());
}

absl::Status ParameterStore::Assign(int shard, int slot, int64_t offset,
                                    std::span<const float> values, int64_t iterations) {
  TP_ASSIGN_OR_RETURN(Entry * entry, Find(shard));
  const int slots = entry->optimizer->slots();
  const int64_t n = entry->def.size;
  const auto count = static_cast<int64_t>(values.size());
  if (slot < 0 || slot > slots || !internal::ElementRangeFits(offset, count, n) || iterations < 0) {
    return absl::InvalidArgumentError(fmt::format(
        "assign to shard {} ({}): slot {} (valid 0..{}), {} elements at offset {} (the shard has "
        "{}), iterations {} (valid >= 0)",
        shard, entry->def.name, slot, slots, count, offset, n, iterations));
  }
  std::lock_guard<std::mutex> lock(entry->mu);
  if (slot == 0) {
    std::copy(values.begin(), values.end(), entry->parameter->value.data() + offset);
  }
  // State is made only when slots or a step count are restored; a shard given
  // values alone keeps the optimizer's own start (its initial slots at the
  // first update).
  if (slot > 0 || iterations > 0) EnsureState(*entry, slots);
  std::vector<std::vector<float>> state = entry->optimizer->state();
  if (slot > 0) {
    std::copy(values.begin(), values.end(),
              state[0].begin() + static_cast<int64_t>(slot - 1) * n + offset);
  }
  if (slot > 0 || iterations != entry->optimizer->iterations()) {
    TP_RETURN_IF_ERROR(entry->optimizer->RestoreState(iterations, std::move(state)));
  }
  return absl::OkStatus();
}

absl::Status ParameterStore::ApplyGradient(int shard, std::span<const float> gradient) {
  TP_ASSIGN_OR_RETURN(Entry * entry, Find(shard));
  if (static_cast<int64_t>(gradient.size()) != entry->def.size) {
    return absl::InvalidArgumentError(
        fmt::format("gradient for shard {} ({}) has {} values, not {}", shard, entry->def.name,
                    gradient.size(), entry->def.size));
  }
  // One lock per shard: workers' pushes to different shards apply in
  // parallel, and those to one shard one after another, each as it arrives.
  std::lock_guard<std::mutex> lock(entry->mu);
  std::copy(gradient.begin(), gradient.end(), entry->parameter->grad.data());
  nn::Parameter* list[] = {entry->parameter.get()};
  return entry->optimizer->Apply(list);
}

absl::StatusOr<std::vector<ShardSnapshot>> ParameterStore::Snapshot(
    bool with_optimizer_state) const {
  std::vector<Entry*> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shards_.empty())
      return absl::FailedPreconditionError("parameter server not configured yet");
    // The store lock is held only to list the shards; each shard is then locked
    // alone, so a snapshot never stops every push at once.
    for (const auto& [id, entry] : shards_) entries.push_back(entry.get());
  }
  std::vector<ShardSnapshot> out;
  for (Entry* entry : entries) {
    std::lock_guard<std::mutex> lock(entry->mu);
    ShardSnapshot snap;
    snap.id = entry->def.id;
    std::span<const float> values = entry->parameter->value.values();
    snap.values.assign(values.begin(), values.end());
    snap.iterations = entry->optimizer->iterations();
    if (with_optimizer_state) {
      const int slots = entry->optimizer->slots();
      const int64_t n = entry->def.size;
      const auto& state = entry->optimizer->state();
      // No state before the first update: the optimizer's initial slots
      // apply then, so there is nothing to copy.
      for (int k = 0; k < slots && !state.empty(); ++k) {
        auto begin = state[0].begin() + static_cast<int64_t>(k) * n;
        snap.slots.emplace_back(begin, begin + n);
      }
    }
    out.push_back(std::move(snap));
  }
  return out;
}

}  // namespace trainpkg::ps
