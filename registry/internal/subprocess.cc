#include "registry/internal/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/file_util.h"
#include "fmt/format.h"

extern char** environ;

namespace trainpkg::registry::internal {
namespace {

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

void CloseIfOpen(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

int ExitCodeOf(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

}  // namespace

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
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return base::ErrnoToStatus(errno, "pipe");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return base::ErrnoToStatus(errno, "pipe");
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return base::ErrnoToStatus(errno, "pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  int to_child = in[1], from_out = out[0], from_err = err[0];
  if (rc != 0) {
    CloseIfOpen(to_child), CloseIfOpen(from_out), CloseIfOpen(from_err);
    return base::ErrnoToStatus(rc, fmt::format("starting {}", argv[0]));
  }
  // Input, output and errors in one poll loop, the input non-blocking: a
  // child that writes a full pipe before reading all its input would
  // otherwise deadlock with us.
  ::fcntl(to_child, F_SETFL, O_NONBLOCK);
  SubprocessResult result;
  size_t written = 0;
  // Closed at once when there is nothing to send: the child sees end of
  // input instead of waiting for it.
  if (input.empty()) CloseIfOpen(to_child);
  absl::Time deadline = absl::Now() + timeout;
  bool timed_out = false;
  {
    ScopedSigpipeBlock no_sigpipe;
    while (from_out >= 0 || from_err >= 0) {
      pollfd fds[3] = {{from_out, POLLIN, 0}, {from_err, POLLIN, 0}, {to_child, POLLOUT, 0}};
      int64_t wait_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
      if (wait_ms <= 0) {
        timed_out = true;
        break;
      }
      int n = ::poll(fds, 3, static_cast<int>(std::min<int64_t>(wait_ms, 1000)));
      if (n < 0 && errno != EINTR) break;
      if (to_child >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
        ssize_t w = ::write(to_child, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        // The child closed its input (EPIPE): stop writing and read what it said.
        if (w < 0 && errno != EAGAIN) written = input.size();
        if (written == input.size()) CloseIfOpen(to_child);
      }
      for (int i = 0; i < 2; ++i) {
        int& fd = i == 0 ? from_out : from_err;
        if (fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[4096];
        ssize_t r = ::read(fd, buf, sizeof(buf));
        if (r > 0) {
          (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(r));
        } else if (r == 0 || errno != EINTR) {
          CloseIfOpen(fd);
        }
      }
    }
  }
  CloseIfOpen(to_child), CloseIfOpen(from_out), CloseIfOpen(from_err);
  if (timed_out) ::kill(pid, SIGKILL);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return absl::DeadlineExceededError(
        fmt::format("{} did not finish within {}", argv[0], absl::FormatDuration(timeout)));
  }
  result.exit_code = ExitCodeOf(wait_status);
  return result;
}

}  // namespace trainpkg::registry::internal
