// How ranks are named in error messages: "rank 2 (worker 1, 127.0.0.1:41234)".
#ifndef TRAINPKG_TRAINER_RUNTIME_COORDINATION_RANK_NAMES_H_
#define TRAINPKG_TRAINER_RUNTIME_COORDINATION_RANK_NAMES_H_

#include <string>
#include <vector>

#include "trainer_runtime/cluster_info.h"

namespace trainpkg::coordination {

// The name of every rank of `info`'s collective, indexed by rank: the rank,
// its TF task ("chief 0" or "worker i") and its address when the launcher
// gave one. Works from any member's ClusterInfo. Empty for a task outside the
// collective (ps, evaluator).
std::vector<std::string> RankNames(const runtime::ClusterInfo& info);

// "rank <r>": the name used when nothing else is known.
std::string PlainRankName(int rank);

}  // namespace trainpkg::coordination

#endif  // TRAINPKG_TRAINER_RUNTIME_COORDINATION_RANK_NAMES_H_
