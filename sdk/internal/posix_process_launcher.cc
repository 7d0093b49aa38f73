#include "sdk/internal/posix_process_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/log.h"
#include "base/status_context.h"
#include "sdk/internal/find_executable.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr char kExecDefaultPath[] = "/usr/local/bin:/usr/bin:/bin";

class PosixProcess final : public Process {
 public:
  PosixProcess(int pid, int output_fd) : pid_(pid), output_fd_(output_fd) {}
  ~PosixProcess() override {
    if (!reaped_) {
      SignalGroup(SIGKILL);
      Wait();
    }
    ::close(output_fd_);
  }

  int pid() const override { return pid_; }
  int output_fd() const override { return output_fd_; }

  ExitStatus Wait() override {
    siginfo_t info{};
    int rc;
    do {
      rc = ::waitid(P_PID, pid_, &info, WEXITED | WNOWAIT);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      // Reaped elsewhere (SIGCHLD ignored, or waitpid(-1) in the host).
      TP_LOG(ERROR, "waiting for pid {}: {}", pid_, std::strerror(errno));
      std::lock_guard<std::mutex> lock(mu_);
      reaped_ = true;
      return ExitStatus{.code = 255};
    }
    // The exited leader is not reaped yet, so its group id cannot be reused.
    ::kill(-pid_, SIGKILL);
    {
      std::lock_guard<std::mutex> lock(mu_);
      reaped_ = true;
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (info.si_code == CLD_EXITED) return ExitStatus{.code = info.si_status};
    return ExitStatus{.signal = info.si_status};
  }

  void SignalGroup(int signal) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reaped_) ::kill(-pid_, signal);
  }

 private:
  const int pid_;
  const int output_fd_;
  std::mutex mu_;
  bool reaped_ = false;  // guarded by mu_
};

// Runs in the forked child: only async-signal-safe calls. Never returns.
[[noreturn]] void ExecChild(pid_t parent, int stdin_fd, int output_fd, int error_fd,
                            const char* path, char* const argv[], char* const envp[]) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  ::setpgid(0, 0);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  if (::dup2(stdin_fd, STDIN_FILENO) < 0 || ::dup2(output_fd, STDOUT_FILENO) < 0 ||
      ::dup2(output_fd, STDERR_FILENO) < 0) {
    int err = errno;
    (void)!::write(error_fd, &err, sizeof(err));
    ::_exit(127);
  }
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  sigset_t empty;
  sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  ::execve(path, argv, envp);
  int err = errno;
  (void)!::write(error_fd, &err, sizeof(err));
  ::_exit(127);
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Process>> PosixProcessLauncher::Start(const ProcessSpec& spec) {
  auto path_it = spec.env.find("PATH");
  absl::StatusOr<std::string> path =
      FindExecutable(spec.program, path_it == spec.env.end() ? kExecDefaultPath : path_it->second);
  if (!path.ok()) {
    return base::WithContext(path.status(), absl::StrCat("starting ", spec.name));
  }
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : spec.env) env_strings.push_back(absl::StrCat(name, "=", value));
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<char*> envp = CStrings(env_strings);

  int output[2];
  int error[2];
  if (::pipe2(output, O_CLOEXEC) != 0) return base::ErrnoToStatus(errno, "creating a pipe");
  if (::pipe2(error, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(output[0]);
    ::close(output[1]);
    return base::ErrnoToStatus(err, "creating a pipe");
  }
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = ::getpid();
  pid_t pid = devnull < 0 ? -1 : ::fork();
  if (pid == 0)
    ExecChild(parent, devnull, output[1], error[1], path->c_str(), argv.data(), envp.data());
  int fork_errno = errno;
  if (devnull >= 0) ::close(devnull);
  ::close(output[1]);
  ::close(error[1]);
  if (pid < 0) {
    ::close(output[0]);
    ::close(error[0]);
    return base::ErrnoToStatus(fork_errno, absl::StrCat("starting ", spec.name));
  }
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins

  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(error[0], &exec_errno, sizeof(exec_errno));
  } while (n < 0 && errno == EINTR);
  ::close(error[0]);
  auto process = std::make_unique<PosixProcess>(pid, output[0]);
  if (n == 0) return process;
  process->Wait();
  return base::ErrnoToStatus(n == sizeof(exec_errno) ? exec_errno : EIO,
                             absl::StrCat("starting ", spec.name, ": executing ", *path));
}

}  // namespace trainpkg::sdk::internal
