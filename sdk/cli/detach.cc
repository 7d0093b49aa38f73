#include "sdk/cli/detach.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/terminal_text.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/signal_watcher.h"

namespace trainpkg::cli {
namespace {

// A file it creates is 0600 whatever the umask (the job's own files are: sdk/job_store.h).
void RedirectTo(const char* path, int flags, std::initializer_list<int> targets) {
  int fd = ::open(path, flags | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if ((flags & O_CREAT) != 0) ::fchmod(fd, 0600);
  for (int target : targets) ::dup2(fd, target);
  ::close(fd);
}

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// The supervisor: runs in the forked child and never returns.
[[noreturn]] void Supervise(sdk::CustomJob& job, int report_fd) {
  // Out of the terminal's session: closing the terminal (SIGHUP) or Ctrl-C
  // there no longer reaches the job.
  ::setsid();
  RedirectTo("/dev/null", O_RDWR, {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO});
  // Before Submit starts any thread, so every thread inherits the mask and
  // only the watcher's sigtimedwait takes SIGINT and SIGTERM.
  BlockTerminationSignals();
  absl::Status submitted = job.Submit();
  // Report "<status code>\n<message>"; code 0 means submitted.
  // The parent waits for this: a job that fails to start is reported by the
  // command itself, with its exit code, not only in a log.
  WriteAll(report_fd, absl::StrCat(static_cast<int>(submitted.code()), "\n", submitted.message()));
  ::close(report_fd);
  if (!submitted.ok()) ::_exit(kExitUsage);
  std::string log = (job.job_dir() / "supervisor.log").string();
  RedirectTo(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, {STDOUT_FILENO, STDERR_FILENO});
  absl::StatusOr<jobspec::CustomJob> done = WaitCancellingOnSignals(job);
  ::_exit(done.ok() ? ExitCodeForState(done->state) : kExitFailed);
}

}  // namespace

int RunDetached(sdk::CustomJob job, std::ostream& out, std::ostream& err) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    return ReportError(err, base::ErrnoToStatus(errno, "creating a pipe"), kExitFailed);
  }
  // Flushed before fork, or the child would write the same buffered text again.
  out.flush();
  err.flush();
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    return ReportError(err, base::ErrnoToStatus(errno, "forking the supervisor"), kExitFailed);
  }
  if (pid == 0) {
    ::close(report[0]);
    Supervise(job, report[1]);
  }
  ::close(report[1]);
  std::string report_text;
  char buf[4096];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    report_text.append(buf, static_cast<size_t>(n));
  }
  ::close(report[0]);
  size_t newline = report_text.find('\n');
  int code = 0;
  if (newline == std::string::npos || !absl::SimpleAtoi(report_text.substr(0, newline), &code)) {
    return ReportError(err, absl::InternalError("the supervisor exited before starting the job"),
                       kExitFailed);
  }
  if (code != 0) {
    return ReportError(
        err, absl::Status(static_cast<absl::StatusCode>(code), report_text.substr(newline + 1)),
        kExitUsage);
  }
  const std::string& id = job.job_id();
  out << "Job ID: " << id << "\n"
      << "Resource name: " << base::TerminalSafe(job.resource_name()) << "\n"
      << "The job runs in the background (supervisor pid " << pid << "). To follow it:\n"
      << "  trainpkg jobs logs " << id << " -f\n"
      << "  trainpkg jobs describe " << id << "\n"
      << "  trainpkg jobs cancel " << id << "\n";
  return kExitOk;
}

}  // namespace trainpkg::cli
