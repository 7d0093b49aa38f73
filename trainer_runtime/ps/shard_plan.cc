#include "trainer_runtime/ps/shard_plan.h"

#include <set>
#include <utility>

#include "fmt/format.h"

namespace trainpkg::ps {

absl::StatusOr<ShardPlan> ShardPlan::Create(std::vector<VariableSpec> variables,
                                            const Partitioner* partitioner, int num_ps) {
  if (num_ps < 1) {
    return absl::InvalidArgumentError(
        fmt::format("shard plan: {} parameter servers; need at least 1", num_ps));
  }
  if (variables.empty()) return absl::InvalidArgumentError("shard plan: no variables");
  ShardPlan plan;
  plan.num_ps_ = num_ps;
  plan.by_ps_.resize(static_cast<size_t>(num_ps));
  std::set<std::string> names;
  int next_ps = 0;
  for (size_t v = 0; v < variables.size(); ++v) {
    const VariableSpec& var = variables[v];
    if (!names.insert(var.name).second) {
      return absl::InvalidArgumentError(
          fmt::format("shard plan: variable name \"{}\" appears twice", var.name));
    }
    for (int64_t d : var.shape) {
      if (d < 0) {
        return absl::InvalidArgumentError(fmt::format("shard plan: variable {} has shape {}",
                                                      var.name, nn::ShapeToString(var.shape)));
      }
    }
    // 4: every variable here is float32.
    const int64_t n = partitioner == nullptr ? 1 : partitioner->NumShards(var.shape, 4);
    const int64_t rows = var.shape.empty() ? 1 : var.shape[0];
    const int64_t row_elements = rows == 0 ? 0 : nn::NumElements(var.shape) / rows;
    int64_t offset = 0;
    std::vector<int64_t> shard_rows = ShardRows(rows, n);
    for (int64_t k = 0; k < n; ++k) {
      Shard shard;
      shard.id = static_cast<int>(plan.shards_.size());
      shard.variable = static_cast<int>(v);
      shard.part = static_cast<int>(k);
      shard.name = n == 1 ? var.name : fmt::format("{}/part_{}", var.name, k);
      shard.offset = offset;
      shard.size = shard_rows[static_cast<size_t>(k)] * row_elements;
      shard.ps = next_ps;
      // Round robin over the ps tasks, carried on from one variable to the next
      // (ParameterServerStrategy places variables round robin too), so the
      // shards of many small variables do not all land on ps 0.
      next_ps = (next_ps + 1) % num_ps;
      offset += shard.size;
      plan.by_ps_[static_cast<size_t>(shard.ps)].push_back(shard.id);
      plan.shards_.push_back(std::move(shard));
    }
  }
  plan.variables_ = std::move(variables);
  return plan;
}

std::vector<VariableSpec> ShardPlan::VariablesOf(std::span<nn::Parameter* const> parameters) {
  std::vector<VariableSpec> out;
  for (const nn::Parameter* p : parameters) out.push_back({p->name, p->value.shape()});
  return out;
}

int64_t ShardPlan::num_elements() const {
  int64_t n = 0;
  for (const Shard& s : shards_) n += s.size;
  return n;
}

}  // namespace trainpkg::ps
