#include "sdk/internal/proc_stat.h"

#include <signal.h>

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace trainpkg::sdk::internal {

absl::StatusOr<ProcStat> ReadProcStat(int pid) {
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(absl::StrCat("/proc/", pid, "/stat")));
  // "pid (comm) state ppid pgrp ... starttime(22) ...": comm may hold spaces
  // and parentheses, so split after the last ')'.
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) {
    return absl::InternalError(absl::StrCat("unexpected /proc/", pid, "/stat: ", text));
  }
  std::vector<std::string> fields = absl::StrSplit(text.substr(paren + 1), ' ', absl::SkipEmpty());
  // fields[0] is field 3 (state); field N is fields[N - 3].
  ProcStat stat;
  if (fields.size() < 20 || fields[0].empty() || !absl::SimpleAtoi(fields[2], &stat.pgid) ||
      !absl::SimpleAtoi(fields[19], &stat.start_time)) {
    return absl::InternalError(absl::StrCat("unexpected /proc/", pid, "/stat: ", text));
  }
  stat.state = fields[0][0];
  return stat;
}

bool IsProcessAlive(int pid, uint64_t start_time) {
  if (pid <= 0) return false;
  absl::StatusOr<ProcStat> stat = ReadProcStat(pid);
  // A zombie has exited; it only waits to be reaped.
  return stat.ok() && stat->state != 'Z' && stat->start_time == start_time;
}

bool SignalProcessGroup(int pgid, uint64_t leader_start_time, int signal) {
  // kill(-1) would signal every process we may signal, and kill(0) our own group.
  if (pgid <= 1) return false;
  absl::StatusOr<ProcStat> leader = ReadProcStat(pgid);
  if (leader.ok() && leader->start_time != leader_start_time) return false;
  return ::kill(-pgid, signal) == 0;
}

}  // namespace trainpkg::sdk::internal
