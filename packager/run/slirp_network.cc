#include "packager/run/slirp_network.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "base/file_util.h"
#include "fmt/format.h"
#include "packager/run/internal/child_exit.h"

namespace trainpkg::packager::run {
namespace {

constexpr int kSlirpExecFailed = 127;
constexpr int kReadyFd = 3;
constexpr int kExitFd = 4;
constexpr size_t kLogTail = 2048;

std::string LogTail(const std::filesystem::path& log) {
  absl::StatusOr<std::string> text = base::ReadFile(log);
  if (!text.ok()) return "";
  return text->size() > kLogTail ? text->substr(text->size() - kLogTail) : *text;
}

}  // namespace

absl::StatusOr<SlirpNetwork> SlirpNetwork::Start(const std::string& name,
                                                 const std::string& slirp4netns,
                                                 const std::filesystem::path& log) {
  absl::StatusOr<NetworkNamespace> netns = NetworkNamespace::Create(name);
  if (!netns.ok()) return netns.status();
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating {}", log.string()));
  int ready[2];
  int exit[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    ::close(log_fd);
    return base::ErrnoToStatus(errno, "pipe");
  }
  if (::pipe2(exit, O_CLOEXEC) != 0) {
    const int err = errno;
    for (int fd : {log_fd, ready[0], ready[1]}) ::close(fd);
    return base::ErrnoToStatus(err, "pipe");
  }
  // --configure: tap0 gets slirp4netns's address, route and DNS. A large MTU
  // (the maximum is 65521): fewer, larger packets through slirp's user-space
  // TCP stack. --disable-host-loopback: the build cannot reach services on
  // the host's 127.0.0.1 through the gateway address. --exit-fd: slirp4netns
  // exits when the write end of that pipe closes, which only this process
  // holds, so it cannot outlive us however we end.
  const std::vector<std::string> argv = {slirp4netns,
                                         "--configure",
                                         "--mtu=65520",
                                         "--disable-host-loopback",
                                         fmt::format("--ready-fd={}", kReadyFd),
                                         fmt::format("--exit-fd={}", kExitFd),
                                         "--netns-type=path",
                                         netns->path().string(),
                                         "tap0"};
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    // dup2 clears O_CLOEXEC on the copy, so only fds 3 and 4 reach slirp4netns.
    ::dup2(ready[1], kReadyFd);
    ::dup2(exit[0], kExitFd);
    ::execvp(args[0], args.data());
    ::_exit(kSlirpExecFailed);
  }
  const int fork_errno = errno;
  for (int fd : {log_fd, ready[1], exit[0]}) ::close(fd);
  if (pid < 0) {
    ::close(ready[0]);
    ::close(exit[1]);
    return base::ErrnoToStatus(fork_errno, "forking slirp4netns");
  }
  // slirp4netns writes "1" once tap0 is configured; end-of-file means it
  // exited.
  char byte = 0;
  ssize_t n;
  while ((n = ::read(ready[0], &byte, 1)) < 0 && errno == EINTR) {
  }
  ::close(ready[0]);
  if (n == 1) return SlirpNetwork(*std::move(netns), exit[1], pid);
  ::close(exit[1]);
  const int code = internal::WaitChildExit(pid);
  if (code == kSlirpExecFailed) {
    return absl::NotFoundError(fmt::format(
        "cannot execute {}: RUN needs it for its network (scripts/install-deps.sh)", slirp4netns));
  }
  return absl::UnavailableError(fmt::format(
      "{} exited with code {} before RUN's network was up: {}", slirp4netns, code, LogTail(log)));
}

SlirpNetwork::~SlirpNetwork() {
  if (exit_fd_ >= 0) ::close(exit_fd_);
  if (pid_ > 0) internal::WaitChildExit(pid_);
}

}  // namespace trainpkg::packager::run
