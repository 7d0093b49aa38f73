#include "trainer_runtime/coordination/rank_names.h"

#include "fmt/format.h"

namespace trainpkg::coordination {

std::vector<std::string> RankNames(const runtime::ClusterInfo& info) {
  if (!info.in_collective()) return {};
  // TF's rule (cluster_info.h): with a chief, worker i is rank i + 1.
  const bool has_chief =
      info.task_type == "chief" || (info.task_type == "worker" && info.rank == info.task_index + 1);
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(info.world_size));
  for (int64_t rank = 0; rank < info.world_size; ++rank) {
    const std::string task = has_chief && rank == 0 ? "chief 0"
                             : has_chief            ? fmt::format("worker {}", rank - 1)
                                                    : fmt::format("worker {}", rank);
    if (static_cast<size_t>(rank) < info.worker_addresses.size()) {
      names.push_back(fmt::format("rank {} ({}, {})", rank, task,
                                  info.worker_addresses[static_cast<size_t>(rank)]));
    } else {
      names.push_back(fmt::format("rank {} ({})", rank, task));
    }
  }
  return names;
}

std::string PlainRankName(int rank) { return fmt::format("rank {}", rank); }

}  // namespace trainpkg::coordination
