// Where every variable of a model lives: its shards (partitioner.h) and the
// parameter server task holding each shard.
//
// Placement is TF's round-robin: shards are taken in variable order (and
// shard order within a variable) and dealt to ps 0, 1, ..., num_ps - 1, 0,
// ... Since a variable is split along axis 0 and stored row-major, each
// shard is one contiguous range [offset, offset + size) of the variable's
// flattened values. A value; thread-compatible.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_SHARD_PLAN_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_SHARD_PLAN_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/nn/shape.h"
#include "trainer_runtime/ps/partitioner.h"

namespace trainpkg::ps {

struct VariableSpec {
  std::string name;
  nn::Shape shape;
};

struct Shard {
  int id = 0;          // index in ShardPlan::shards()
  int variable = 0;    // index in ShardPlan::variables()
  int part = 0;        // shard number within the variable
  std::string name;    // "<variable>" or "<variable>/part_<k>" when split
  int64_t offset = 0;  // first element within the flattened variable
  int64_t size = 0;    // elements
  int ps = 0;          // parameter server task index
};

class ShardPlan {
 public:
  // `partitioner` null: one shard per variable. InvalidArgument for
  // num_ps < 1, no variables, duplicate names or a negative dimension.
  static absl::StatusOr<ShardPlan> Create(std::vector<VariableSpec> variables,
                                          const Partitioner* partitioner, int num_ps);
  // The variables of a model's parameters, in order.
  static std::vector<VariableSpec> VariablesOf(std::span<nn::Parameter* const> parameters);

  int num_ps() const { return num_ps_; }
  const std::vector<VariableSpec>& variables() const { return variables_; }
  const std::vector<Shard>& shards() const { return shards_; }
  // The ids of the shards on task `ps`, ascending. REQUIRES: 0 <= ps < num_ps().
  const std::vector<int>& ShardsOn(int ps) const { return by_ps_.at(static_cast<size_t>(ps)); }
  // Elements over all variables (4 bytes each).
  int64_t num_elements() const;

 private:
  int num_ps_ = 1;
  std::vector<VariableSpec> variables_;
  std::vector<Shard> shards_;
  std::vector<std::vector<int>> by_ps_;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_SHARD_PLAN_H_
