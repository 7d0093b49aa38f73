#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/file_util.h"
#include "base/unique_fd.h"
#include "fmt/format.h"

extern char** environ;

namespace trainpkg::base {
namespace {

// Moves `fd` above 2 (close-on-exec), so that placing the child's 0, 1 and 2
// can never overwrite a descriptor still to be placed when this process
// itself runs with some of 0, 1 and 2 closed.
absl::StatusOr<UniqueFd> AboveStdio(int fd, std::string_view what) {
  UniqueFd owned(fd);
  if (fd > STDERR_FILENO) return owned;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0) return ErrnoToStatus(errno, what);
  return UniqueFd(moved);
}

struct SpawnPipe {
  UniqueFd read;
  UniqueFd write;
};

absl::StatusOr<SpawnPipe> MakePipe(std::string_view what) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoToStatus(errno, what);
  SpawnPipe pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
  absl::StatusOr<UniqueFd> read = AboveStdio(pipe.read.Release(), what);
  if (!read.ok()) return read.status();
  absl::StatusOr<UniqueFd> write = AboveStdio(pipe.write.Release(), what);
  if (!write.ok()) return write.status();
  return SpawnPipe{std::move(*read), std::move(*write)};
}

// Everything the forked child needs, prepared before fork: between fork and
// execve a multi-threaded parent's child may only make async-signal-safe
// calls.
struct ChildPlan {
  pid_t parent = -1;
  bool new_session = false;
  bool die_with_parent = true;
  int stdin_from = -1;
  int stdout_to = -1;
  int stderr_to = -1;
  int error_report = -1;  // close-on-exec: the child writes errno if exec fails
  const char* path = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
};

[[noreturn]] void ReportErrnoAndExit(int error_report) {
  int err = errno;
  (void)!::write(error_report, &err, sizeof(err));
  ::_exit(127);
}

// Runs in the forked child. Never returns.
[[noreturn]] void ExecChild(const ChildPlan& plan) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  if (plan.new_session ? ::setsid() < 0 : ::setpgid(0, 0) != 0) {
    ReportErrnoAndExit(plan.error_report);
  }
  // The parent may have died before prctl: then nobody would send the signal.
  if (plan.die_with_parent &&
      (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != plan.parent)) {
    ::_exit(127);
  }
  if (::dup2(plan.stdin_from, STDIN_FILENO) < 0 || ::dup2(plan.stdout_to, STDOUT_FILENO) < 0 ||
      ::dup2(plan.stderr_to, STDERR_FILENO) < 0) {
    ReportErrnoAndExit(plan.error_report);
  }
  // Not close(): the error report must stay open until execve succeeds.
  ::close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC);
  sigset_t empty;
  sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  ::execve(plan.path, plan.argv, plan.envp);
  ReportErrnoAndExit(plan.error_report);
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The descriptors the child gets as 0, 1 and 2, and the parent's ends.
struct ChildStdio {
  UniqueFd stdin_from;
  UniqueFd stdout_to;
  UniqueFd stderr_to;  // unset: the same as stdout_to
  UniqueFd to_stdin;
  UniqueFd from_stdout;
  UniqueFd from_stderr;
};

absl::StatusOr<ChildStdio> MakeStdio(const SpawnOptions& options) {
  ChildStdio stdio;
  if (options.input == SpawnOptions::Input::kPipe) {
    absl::StatusOr<SpawnPipe> in = MakePipe("creating a pipe");
    if (!in.ok()) return in.status();
    stdio.stdin_from = std::move(in->read);
    stdio.to_stdin = std::move(in->write);
  } else {
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoToStatus(errno, "opening /dev/null");
    absl::StatusOr<UniqueFd> devnull = AboveStdio(fd, "opening /dev/null");
    if (!devnull.ok()) return devnull.status();
    stdio.stdin_from = std::move(*devnull);
  }
  if (options.output == SpawnOptions::Output::kAppendToFile) {
    const std::string what = absl::StrCat("opening ", options.output_file.string());
    int fd = ::open(options.output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoToStatus(errno, what);
    absl::StatusOr<UniqueFd> file = AboveStdio(fd, what);
    if (!file.ok()) return file.status();
    stdio.stdout_to = std::move(*file);
    return stdio;
  }
  absl::StatusOr<SpawnPipe> out = MakePipe("creating a pipe");
  if (!out.ok()) return out.status();
  stdio.stdout_to = std::move(out->write);
  stdio.from_stdout = std::move(out->read);
  if (options.output == SpawnOptions::Output::kSeparatePipes) {
    absl::StatusOr<SpawnPipe> err = MakePipe("creating a pipe");
    if (!err.ok()) return err.status();
    stdio.stderr_to = std::move(err->write);
    stdio.from_stderr = std::move(err->read);
  }
  return stdio;
}

// Waits for the child to have exec'd (the report pipe closes on exec) or
// failed; the errno it reported, or 0.
int ReadExecErrno(int report) {
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(report, &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  if (n == 0) return 0;
  return n == sizeof(exec_errno) ? exec_errno : EIO;
}

ExitStatus FromSiginfo(const siginfo_t& info) {
  if (info.si_code == CLD_EXITED) return ExitStatus{.code = info.si_status};
  return ExitStatus{.signal = info.si_status};
}

// Blocks SIGPIPE in this thread while writing to a child that may have
// exited, and swallows one that became pending (the usual pattern).
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_);
  }
  ~ScopedSigpipeBlock() {
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    const timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_;
};

// Sends `input` to the child and reads its stdout and stderr until both
// close or `deadline` passes; false on the deadline.
bool Exchange(Child& child, std::string_view input, absl::Time deadline, SubprocessResult& result) {
  // Input, output and errors in one poll loop, the input non-blocking: a
  // child that writes a full pipe before reading all its input would
  // otherwise deadlock with us.
  ::fcntl(child.stdin_fd(), F_SETFL, O_NONBLOCK);
  size_t written = 0;
  // Closed at once when there is nothing to send: the child sees end of
  // input instead of waiting for it.
  if (input.empty()) child.CloseStdin();
  // The output pipes still open (-1 once at end of file; poll skips them).
  int from[2] = {child.stdout_fd(), child.stderr_fd()};
  ScopedSigpipeBlock no_sigpipe;
  while (from[0] >= 0 || from[1] >= 0) {
    pollfd fds[3] = {{from[0], POLLIN, 0}, {from[1], POLLIN, 0}, {child.stdin_fd(), POLLOUT, 0}};
    int64_t wait_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (wait_ms <= 0) return false;
    int n = ::poll(fds, 3, static_cast<int>(std::min<int64_t>(wait_ms, 1000)));
    if (n < 0 && errno != EINTR) break;
    if (child.stdin_fd() >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = ::write(child.stdin_fd(), input.data() + written, input.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      // The child closed its input (EPIPE): stop writing and read what it said.
      if (w < 0 && errno != EAGAIN) written = input.size();
      if (written == input.size()) child.CloseStdin();
    }
    for (int i = 0; i < 2; ++i) {
      if (from[i] < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t r = ::read(from[i], buf, sizeof(buf));
      if (r > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        from[i] = -1;
      }
    }
  }
  return true;
}

}  // namespace

Child::Child(pid_t pid, int stdin_fd, int stdout_fd, int stderr_fd, bool kill_on_destruction)
    : pid_(pid),
      stdin_fd_(stdin_fd),
      stdout_fd_(stdout_fd),
      stderr_fd_(stderr_fd),
      kill_on_destruction_(kill_on_destruction) {}

Child::~Child() {
  bool reaped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    reaped = reaped_;
  }
  if (!reaped && kill_on_destruction_) {
    SignalGroup(SIGKILL);
    (void)Wait(Rest::kKill);
  }
  CloseStdin();
  for (int fd : {stdout_fd_, stderr_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

void Child::CloseStdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

absl::StatusOr<ExitStatus> Child::Wait(Rest rest) {
  absl::StatusOr<std::optional<ExitStatus>> exit = WaitFor(0, rest);
  if (!exit.ok()) return exit.status();
  return **exit;
}

absl::StatusOr<std::optional<ExitStatus>> Child::TryWait(Rest rest) {
  return WaitFor(WNOHANG, rest);
}

absl::StatusOr<std::optional<ExitStatus>> Child::WaitFor(int flags, Rest rest) {
  siginfo_t info{};
  int rc;
  // WNOWAIT: the exited child stays a zombie, so its pid (the group id) is
  // not reused before the rest of the group is killed.
  do {
    rc = ::waitid(P_PID, pid_, &info, WEXITED | WNOWAIT | flags);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int err = errno;
    std::lock_guard<std::mutex> lock(mu_);
    reaped_ = true;
    return ErrnoToStatus(err, absl::StrCat("waiting for pid ", pid_));
  }
  if (info.si_pid == 0) return std::nullopt;  // WNOHANG, still running
  if (rest == Rest::kKill) ::kill(-pid_, SIGKILL);
  {
    std::lock_guard<std::mutex> lock(mu_);
    reaped_ = true;
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  return FromSiginfo(info);
}

void Child::SignalGroup(int signal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reaped_) ::kill(-pid_, signal);
}

absl::StatusOr<std::unique_ptr<Child>> Spawn(const SpawnOptions& options) {
  const std::string program =
      options.program.empty() ? options.argv.front() : options.program.string();
  absl::StatusOr<ChildStdio> stdio = MakeStdio(options);
  if (!stdio.ok()) return stdio.status();
  absl::StatusOr<SpawnPipe> report = MakePipe("creating a pipe");
  if (!report.ok()) return report.status();

  std::vector<std::string> argv_strings = options.argv;
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<std::string> env_strings;
  if (options.environment.has_value()) {
    for (const auto& [name, value] : *options.environment) {
      env_strings.push_back(absl::StrCat(name, "=", value));
    }
  }
  std::vector<char*> envp = CStrings(env_strings);
  const ChildPlan plan{
      .parent = ::getpid(),
      .new_session = options.grouping == SpawnOptions::Grouping::kNewSession,
      .die_with_parent = options.die_with_calling_thread,
      .stdin_from = stdio->stdin_from.get(),
      .stdout_to = stdio->stdout_to.get(),
      .stderr_to = stdio->stderr_to.get() >= 0 ? stdio->stderr_to.get() : stdio->stdout_to.get(),
      .error_report = report->write.get(),
      .path = program.c_str(),
      .argv = argv.data(),
      .envp = options.environment.has_value() ? envp.data() : environ,
  };
  pid_t pid = ::fork();
  if (pid == 0) ExecChild(plan);
  if (pid < 0) return ErrnoToStatus(errno, absl::StrCat("starting ", program));
  // The child's ends, and the report's write end, are the child's alone now.
  stdio->stdin_from.Reset();
  stdio->stdout_to.Reset();
  stdio->stderr_to.Reset();
  report->write.Reset();
  // Returns once the child has set up its group (or session) and exec'd.
  const int exec_errno = ReadExecErrno(report->read.get());
  auto child = std::make_unique<Child>(pid, stdio->to_stdin.Release(), stdio->from_stdout.Release(),
                                       stdio->from_stderr.Release(),
                                       /*kill_on_destruction=*/options.die_with_calling_thread);
  if (exec_errno == 0) return child;
  (void)child->Wait(Child::Rest::kKill);
  return ErrnoToStatus(exec_errno, absl::StrCat("starting ", program));
}

std::optional<std::filesystem::path> FindInPath(std::string_view name, std::string_view path_list) {
  for (absl::string_view dir : absl::StrSplit(absl::string_view(path_list.data(), path_list.size()),
                                              ':', absl::SkipEmpty())) {
    std::filesystem::path candidate = std::filesystem::path(std::string(dir)) / std::string(name);
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

absl::StatusOr<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                               std::string_view input, absl::Duration timeout) {
  absl::StatusOr<std::unique_ptr<Child>> child =
      Spawn(SpawnOptions{.argv = argv,
                         .input = SpawnOptions::Input::kPipe,
                         .output = SpawnOptions::Output::kSeparatePipes});
  if (!child.ok()) return child.status();
  SubprocessResult result;
  if (!Exchange(**child, input, absl::Now() + timeout, result)) {
    (*child)->SignalGroup(SIGKILL);
    (void)(*child)->Wait(Child::Rest::kKill);
    return absl::DeadlineExceededError(
        fmt::format("{} did not finish within {}", argv[0], absl::FormatDuration(timeout)));
  }
  (*child)->CloseStdin();
  absl::StatusOr<ExitStatus> exit = (*child)->Wait(Child::Rest::kKill);
  if (!exit.ok()) return exit.status();
  result.exit_code = exit->signal != 0 ? 128 + exit->signal : exit->code;
  return result;
}

}  // namespace trainpkg::base
