// Reading /proc/<pid>/stat, to tell a live process of ours from a zombie or
// from an unrelated process that reused the pid.
#ifndef TRAINPKG_SDK_INTERNAL_PROC_STAT_H_
#define TRAINPKG_SDK_INTERNAL_PROC_STAT_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::internal {

struct ProcStat {
  char state = '?';  // 'R', 'S', 'Z', ...
  int pgid = 0;
  uint64_t start_time = 0;  // clock ticks after boot
};

// NotFound when there is no such process.
absl::StatusOr<ProcStat> ReadProcStat(int pid);

// True when `pid` runs (is not a zombie) and started at `start_time`.
bool IsProcessAlive(int pid, uint64_t start_time);

// Sends `signal` to process group `pgid`, whose leader started at
// `leader_start_time`, unless the pid now names another process (reused).
// Once the leader is gone, the group id cannot be reused while any member
// lives, so the survivors are signalled. Returns true when a signal was sent.
bool SignalProcessGroup(int pgid, uint64_t leader_start_time, int signal);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_PROC_STAT_H_
