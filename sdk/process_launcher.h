// The process seam of the local backend: how a replica's executable is
// started, watched and stopped. The default implementation forks and execs;
// tests may supply their own.
#ifndef TRAINPKG_SDK_PROCESS_LAUNCHER_H_
#define TRAINPKG_SDK_PROCESS_LAUNCHER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::sdk {

// How a process ended: exactly one of "exited with `code`" (signal == 0) or
// "terminated by `signal`".
struct ExitStatus {
  int code = 0;
  int signal = 0;
  bool ok() const { return code == 0 && signal == 0; }
  bool operator==(const ExitStatus&) const = default;
};

// "exited with a non-zero status of 3", "exited with status 0" or
// "was terminated by signal 9 (Killed)".
std::string DescribeExitStatus(const ExitStatus& status);

struct ProcessSpec {
  std::string name;                        // used in error messages, e.g. "workerpool1-0"
  std::string program;                     // a path, or a name looked up on env's PATH
  std::vector<std::string> argv;           // argv[0] first. REQUIRES: non-empty
  std::map<std::string, std::string> env;  // the complete environment of the process
};

// A started process leading its own process group, with stdin from
// /dev/null and stdout and stderr going to one pipe.
class Process {
 public:
  virtual ~Process() = default;
  // The process id, which is also its process group id.
  virtual int pid() const = 0;
  // Read end of the stdout+stderr pipe, owned by this Process: readers must
  // be done before it is destroyed.
  virtual int output_fd() const = 0;
  // Blocks until the process exits, kills (SIGKILL) what is left of its
  // process group, as a container's processes die with its init, then reaps
  // it. Call at most once. REQUIRES: called before destruction.
  virtual ExitStatus Wait() = 0;
  // Sends `signal` to the process group; does nothing once Wait() has reaped
  // the process, so a reused pid is never signalled. Thread-safe.
  virtual void SignalGroup(int signal) = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  // Starts `spec`. Errors (NotFound, PermissionDenied, ...) name spec.name
  // and the program, and leave no process behind. The child gets its own
  // process group, default signal dispositions and an empty signal mask, and
  // is killed (SIGKILL) when the *calling thread* exits (PR_SET_PDEATHSIG),
  // so call it from a thread that outlives the process. Thread-safe.
  virtual absl::StatusOr<std::unique_ptr<Process>> Start(const ProcessSpec& spec) = 0;
};

// fork/exec on Linux. Never fails; shared by every job.
std::shared_ptr<ProcessLauncher> DefaultProcessLauncher();

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_PROCESS_LAUNCHER_H_
