// What one parameter server task holds: its shards' values and one
// optimizer per shard (nn's update math), with no gRPC in it.
//
//   ParameterStore store;
//   TP_RETURN_IF_ERROR(store.Configure({{0, "dense/kernel", 16384}}, config));
//   TP_RETURN_IF_ERROR(store.Assign(0, 0, 0, initial_values, 0));
//   TP_RETURN_IF_ERROR(store.ApplyGradient(0, gradient));   // optimizer step
//
// Updates are asynchronous across callers: each ApplyGradient is applied to
// the current values (no staleness check, as TF's ParameterServerStrategy).
// Thread-safe; each shard has its own lock, so pushes to different shards
// run in parallel.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_PARAMETER_STORE_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_PARAMETER_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/nn/optimizer.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/ps/optimizer_config.h"

namespace trainpkg::ps {

struct ShardDef {
  int id = 0;
  std::string name;
  int64_t size = 0;
};

// One shard's values, optimizer slots and iteration count at one moment.
struct ShardSnapshot {
  int id = 0;
  std::vector<float> values;
  std::vector<std::vector<float>> slots;  // empty unless asked for, or before any update
  int64_t iterations = 0;
};

class ParameterStore {
 public:
  // A store whose shards may hold the machine's physical memory at most.
  ParameterStore();
  // A store whose shards (values and optimizer slots) may hold `max_bytes`.
  explicit ParameterStore(int64_t max_bytes) : max_bytes_(max_bytes) {}
  ParameterStore(const ParameterStore&) = delete;
  ParameterStore& operator=(const ParameterStore&) = delete;

  // Creates the shards (zeros) and their optimizers. Calling it again with
  // the same shards (ids, names, sizes) is OK and changes nothing;
  // FailedPrecondition for other shards; InvalidArgument for a negative
  // size or a duplicate id; ResourceExhausted, before allocating anything,
  // when the shards with their optimizer slots need more than the store's
  // memory limit; MakeOptimizer's errors.
  absl::Status Configure(std::vector<ShardDef> shards, const OptimizerConfig& config);

  // Writes `values` at `offset` of slot `slot` (0 = values, k = optimizer
  // slot k - 1) of shard `shard`, and sets its iteration count.
  // FailedPrecondition before Configure; InvalidArgument for an unknown
  // shard or slot or a range outside the shard.
  absl::Status Assign(int shard, int slot, int64_t offset, std::span<const float> values,
                      int64_t iterations);

  // One optimizer step on shard `shard` with `gradient` (the shard's size).
  // Same errors as Assign.
  absl::Status ApplyGradient(int shard, std::span<const float> gradient);

  // Copies of every shard, ascending id. FailedPrecondition before Configure.
  absl::StatusOr<std::vector<ShardSnapshot>> Snapshot(bool with_optimizer_state) const;
  // The shard's size; InvalidArgument for an unknown shard.
  absl::StatusOr<int64_t> ShardSize(int shard) const;

 private:
  struct Entry {
    ShardDef def;
    std::unique_ptr<nn::Parameter> parameter;
    std::unique_ptr<nn::Optimizer> optimizer;
    mutable std::mutex mu;
  };
  absl::StatusOr<Entry*> Find(int shard) const;
  // Makes sure the optimizer's state exists (it is sized on the first Apply).
  static void EnsureState(Entry& entry, int slots);

  const int64_t max_bytes_;
  mutable std::mutex mu_;  // guards the map's structure
  std::map<int, std::unique_ptr<Entry>> shards_;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_PARAMETER_STORE_H_
