#include "packager/run/runc_run.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "base/file_util.h"
#include "fmt/format.h"
#include "packager/run/host_resource_ledger.h"
#include "packager/run/internal/child_exit.h"

namespace trainpkg::packager::run {
namespace {

constexpr size_t kTailBytes = 4096;
constexpr int kExecFailed = 127;

// Forks `argv` with stdin from /dev/null and stdout + stderr into `out_fd`
// (-1: /dev/null). Returns the child's pid.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, int out_fd) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return base::ErrnoToStatus(errno, "fork");
  if (pid == 0) {
    int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_fd >= 0 ? out_fd : null_fd, STDOUT_FILENO);
    ::dup2(out_fd >= 0 ? out_fd : null_fd, STDERR_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(kExecFailed);
  }
  return pid;
}

}  // namespace

absl::StatusOr<RuncExit> RuncRun(const std::string& runc, const std::filesystem::path& bundle_dir,
                                 const std::string& container_id,
                                 const std::function<void(std::string_view)>& output) {
  // Recorded before runc starts: if this process dies first, the ledger
  // tells the next run which container to delete.
  absl::StatusOr<LedgerEntry> entry = RecordHostResource(
      {.kind = HostResourceKind::kContainer, .name = container_id, .runtime = runc});
  if (!entry.ok()) return entry.status();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return base::ErrnoToStatus(errno, "pipe");
  absl::StatusOr<pid_t> pid =
      Spawn({runc, "run", "--bundle", bundle_dir.string(), container_id}, pipe_fds[1]);
  ::close(pipe_fds[1]);
  if (!pid.ok()) {
    ::close(pipe_fds[0]);
    return pid.status();
  }
  RuncExit exit;
  char buffer[8192];
  for (;;) {
    ssize_t n = ::read(pipe_fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view chunk(buffer, static_cast<size_t>(n));
    if (output) output(chunk);
    exit.output_tail.append(chunk);
    // Trimmed at twice the tail, so the erase is paid once per kTailBytes of
    // output, not on every read.
    if (exit.output_tail.size() > 2 * kTailBytes) {
      exit.output_tail.erase(0, exit.output_tail.size() - kTailBytes);
    }
  }
  ::close(pipe_fds[0]);
  exit.exit_code = internal::WaitChildExit(*pid);
  if (exit.output_tail.size() > kTailBytes) {
    exit.output_tail.erase(0, exit.output_tail.size() - kTailBytes);
  }
  // `runc run` removes a container whose process exited; this covers runc
  // failing half-way.
  absl::StatusOr<pid_t> deleter = Spawn({runc, "delete", "--force", container_id}, -1);
  if (deleter.ok()) internal::WaitChildExit(*deleter);
  entry->Release();
  if (exit.exit_code == kExecFailed && exit.output_tail.empty()) {
    return absl::NotFoundError(fmt::format("cannot execute {} (install runc)", runc));
  }
  return exit;
}

}  // namespace trainpkg::packager::run
