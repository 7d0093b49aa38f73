// The process seam of the backends: how a replica's executable (and Slurm's
// commands) are started, watched and stopped. The default implementation
// forks and execs; tests may supply their own.
#ifndef TRAINPKG_SDK_PROCESS_LAUNCHER_H_
#define TRAINPKG_SDK_PROCESS_LAUNCHER_H_

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/subprocess.h"

namespace trainpkg::sdk {

// How a process ended: exactly one of "exited with `code`" (signal == 0) or
// "terminated by `signal`".
using ExitStatus = base::ExitStatus;

// "exited with a non-zero status of 3", "exited with status 0" or
// "was terminated by signal 9 (Killed)".
std::string DescribeExitStatus(const ExitStatus& status);

struct ProcessSpec {
  std::string name;                        // used in error messages, e.g. "workerpool1-0"
  std::string program;                     // a path, or a name looked up on env's PATH
  std::vector<std::string> argv;           // argv[0] first. REQUIRES: non-empty
  std::map<std::string, std::string> env;  // the complete environment of the process
  // Where stdout and stderr go: nullopt, one pipe (Process::output_fd());
  // else appended to this file, created if missing.
  std::optional<std::filesystem::path> append_output_to{};
  // A process that goes on when this one ends (salloc holding a Slurm
  // allocation): it leads a session of its own instead of a process group,
  // is not killed when the calling thread exits, and destroying its Process
  // before Wait() leaves it running.
  bool outlives_caller = false;
};

// A started process leading its own process group (or session, with
// outlives_caller), with stdin from /dev/null and stdout and stderr going to
// one pipe (or to append_output_to).
class Process {
 public:
  virtual ~Process() = default;
  // The process id, which is also its process group id.
  virtual int pid() const = 0;
  // Read end of the stdout+stderr pipe, owned by this Process: readers must
  // be done before it is destroyed. -1 with append_output_to.
  virtual int output_fd() const = 0;
  // Blocks until the process exits, kills (SIGKILL) what is left of its
  // process group, as a container's processes die with its init, then reaps
  // it. Call at most once. REQUIRES: called before destruction (unless the
  // spec had outlives_caller).
  virtual ExitStatus Wait() = 0;
  // As Wait() when the process has exited; nullopt, without blocking, while
  // it runs. Once it returned a status, neither it nor Wait() may be called
  // again.
  virtual std::optional<ExitStatus> TryWait() = 0;
  // Sends `signal` to the process group; does nothing once Wait() or
  // TryWait() has reaped the process, so a reused pid is never signalled.
  // Thread-safe.
  virtual void SignalGroup(int signal) = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  // Starts `spec`. Errors (NotFound, PermissionDenied, ...) name spec.name
  // and the program, and leave no process behind. The child gets its own
  // process group, default signal dispositions and an empty signal mask, and
  // is killed (SIGKILL) when the *calling thread* exits (PR_SET_PDEATHSIG),
  // so call it from a thread that outlives the process; unless
  // spec.outlives_caller. Thread-safe.
  virtual absl::StatusOr<std::unique_ptr<Process>> Start(const ProcessSpec& spec) = 0;
};

// fork/exec on Linux. Never fails; shared by every job.
std::shared_ptr<ProcessLauncher> DefaultProcessLauncher();

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_PROCESS_LAUNCHER_H_
