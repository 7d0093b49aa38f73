// Starting a child program on Linux: the one place the product forks and
// execs a program (credential helpers, replicas of the local backend,
// Slurm's commands and salloc). packager/run/* keeps its own forks for
// container set-up: slirp4netns, which is handed extra descriptors (ready
// and exit), the host-resource watchdog, which execs nothing, and `runc run`.
#ifndef TRAINPKG_BASE_SUBPROCESS_H_
#define TRAINPKG_BASE_SUBPROCESS_H_

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trainpkg::base {

// How a child ended: exactly one of "exited with `code`" (signal == 0) or
// "terminated by `signal`".
struct ExitStatus {
  int code = 0;
  int signal = 0;
  bool ok() const { return code == 0 && signal == 0; }
  bool operator==(const ExitStatus&) const = default;
};

struct SpawnOptions {
  enum class Input {
    kDevNull,  // stdin reads /dev/null
    kPipe,     // stdin is a pipe whose write end is Child::stdin_fd()
  };
  enum class Output {
    kCombinedPipe,   // stdout and stderr share one pipe: Child::stdout_fd()
    kSeparatePipes,  // Child::stdout_fd() and Child::stderr_fd()
    kAppendToFile,   // both appended to `output_file`, created (0644) if missing
  };
  enum class Grouping {
    kNewProcessGroup,  // the child leads a process group of its own
    kNewSession,       // the child leads a session (and group) of its own
  };

  std::vector<std::string> argv{};  // REQUIRES: non-empty
  // The file executed; empty: argv[0], then an absolute path.
  std::filesystem::path program{};
  // The complete environment of the child; nullopt: this process's.
  std::optional<std::map<std::string, std::string>> environment{};
  Input input = Input::kDevNull;
  Output output = Output::kCombinedPipe;
  std::filesystem::path output_file{};  // with Output::kAppendToFile
  Grouping grouping = Grouping::kNewProcessGroup;
  // PR_SET_PDEATHSIG(SIGKILL): the child is killed when the thread that
  // called Spawn() exits. Off: the child may outlive this process, and
  // destroying its Child handle leaves it running.
  bool die_with_calling_thread = true;
};

// A started child. Owns the pipe ends it hands out (closed on destruction).
// Destroying a Child that was not reaped kills its group (SIGKILL) and
// reaps it, unless it was started with die_with_calling_thread off.
// Wait, TryWait and SignalGroup may be called from different threads.
class Child {
 public:
  Child(pid_t pid, int stdin_fd, int stdout_fd, int stderr_fd, bool kill_on_destruction);
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  // Also the id of its process group (and session, with kNewSession).
  pid_t pid() const { return pid_; }
  // -1 where the options gave no such pipe.
  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  // Closes the write end of stdin: the child reads end of input.
  void CloseStdin();

  // What to do with the rest of the child's group once the child has exited.
  enum class Rest { kLeave, kKill };
  // Blocks until the child exits and reaps it; with Rest::kKill first kills
  // (SIGKILL) what is left of its group, while the unreaped child still
  // holds the group id. Internal error, naming the pid, when the child was
  // reaped elsewhere (SIGCHLD ignored, or waitpid(-1) in the host program).
  absl::StatusOr<ExitStatus> Wait(Rest rest);
  // As Wait(), without blocking: nullopt while the child runs.
  absl::StatusOr<std::optional<ExitStatus>> TryWait(Rest rest);
  // Sends `signal` to the child's process group; does nothing once the child
  // has been reaped, so a reused pid is never signalled.
  void SignalGroup(int signal);

 private:
  absl::StatusOr<std::optional<ExitStatus>> WaitFor(int flags, Rest rest);

  const pid_t pid_;
  int stdin_fd_;
  const int stdout_fd_;
  const int stderr_fd_;
  const bool kill_on_destruction_;
  std::mutex mu_;
  bool reaped_ = false;  // guarded by mu_
};

// Starts `options.argv`. The child gets default signal dispositions, an
// empty signal mask and no descriptors of this process beyond 0, 1 and 2.
// Errors name the program (or the output file) and the errno text, and leave no
// process or descriptor behind.
absl::StatusOr<std::unique_ptr<Child>> Spawn(const SpawnOptions& options);

struct SubprocessResult {
  int exit_code = 0;  // 128 + signal number when killed by a signal
  std::string out;
  std::string err;
};

// The first executable file called `name` in the ':'-separated `path_list`,
// or nullopt.
std::optional<std::filesystem::path> FindInPath(std::string_view name, std::string_view path_list);

// Runs `argv` (argv[0] an absolute path) with the current environment in a
// process group of its own, writes `input` to its stdin and closes it, and
// collects its output. DeadlineExceeded (after killing its group) when it
// outlives `timeout`.
absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                               std::string_view input, absl::Duration timeout);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_SUBPROCESS_H_
