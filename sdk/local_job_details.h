// What the local backend records about a job beyond the Vertex resource:
// the supervising process and each replica's process, as stored in
// <job dir>/local.json. Start times are /proc/<pid>/stat "starttime" values
// (clock ticks since boot), kept so a reused pid is never mistaken for ours.
#ifndef TRAINPKG_SDK_LOCAL_JOB_DETAILS_H_
#define TRAINPKG_SDK_LOCAL_JOB_DETAILS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk {

struct SupervisorDetails {
  int pid = 0;
  uint64_t start_time = 0;
  bool operator==(const SupervisorDetails&) const = default;
};

struct ReplicaDetails {
  std::string name;  // "workerpool1-0"
  int pid = 0;
  int pgid = 0;
  uint64_t start_time = 0;
  std::string address;            // "127.0.0.1:41234"
  std::vector<std::string> argv;  // what was executed
  // Container mode: the runc container it runs (in runc's default root),
  // whose bundle is <job dir>/containers/<name>; "" in process mode.
  std::string container_id;
  // SSH backend: the host it runs on, as the host list names it; its pid
  // and pgid are then those of its ssh client here. "" on this machine.
  std::string host;
  std::optional<ExitStatus> exit_status;
  // How many times the job started this replica again after a replica
  // failed (scheduling.restartJobOnWorkerRestart restarts them all).
  int restarts = 0;
  bool operator==(const ReplicaDetails&) const = default;
};

struct LocalJobDetails {
  SupervisorDetails supervisor;
  std::vector<ReplicaDetails> replicas;  // in start order
  bool operator==(const LocalJobDetails&) const = default;
};

// local.json text (pretty, camelCase keys) and back. Parse errors are
// InvalidArgument naming the field.
std::string FormatLocalJobDetails(const LocalJobDetails& details);
absl::StatusOr<LocalJobDetails> ParseLocalJobDetails(std::string_view text);

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_LOCAL_JOB_DETAILS_H_
