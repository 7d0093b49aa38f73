// Slurm's compressed host and task-count lists, as found in
// SLURM_STEP_NODELIST and SLURM_STEP_TASKS_PER_NODE.
#ifndef TRAINPKG_TRAINER_RUNTIME_SLURM_HOSTLIST_H_
#define TRAINPKG_TRAINER_RUNTIME_SLURM_HOSTLIST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::runtime {

// Expands a hostlist, keeping its order and any duplicates:
//   "n[1-2],m5,o[3-4,6,7-9]" -> n1 n2 m5 o3 o4 o6 o7 o8 o9
//   "node[01-03]"            -> node01 node02 node03
//   "r[1-2]n[1-2]"           -> r1n1 r1n2 r2n1 r2n2
// A number is zero-padded to the width of its range's lower bound, as Slurm
// does ("n[8-10]" -> n8 n9 n10). InvalidArgument, quoting the offending
// part, for an empty name, unbalanced or nested brackets, a range that is not
// digits or runs backwards, more than 1,048,576 hosts, or more than 64 MiB of
// host names; refused before they are made, so a hostile list costs time
// and memory in proportion to its own length.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(std::string_view hostlist);

// Expands a tasks-per-node list: "3(x2),2,1" -> {3, 3, 2, 1}. Counts and
// repeats are positive integers. InvalidArgument, quoting the entry, otherwise.
absl::StatusOr<std::vector<int64_t>> ExpandTasksPerNode(std::string_view text);

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_SLURM_HOSTLIST_H_
