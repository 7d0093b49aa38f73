#include "sdk/internal/log_pump.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/log.h"

namespace trainpkg::sdk::internal {
namespace {

// A line longer than this is passed on in pieces.
constexpr size_t kMaxLine = 64 * 1024;

}  // namespace

absl::StatusOr<std::unique_ptr<LogPump>> LogPump::Start(int fd,
                                                        const std::filesystem::path& log_file,
                                                        std::string prefix, LineStream* live) {
  // 0600 whatever the umask: a trainer may print its secrets (sdk/job_store.h).
  int log_fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) return base::ErrnoToStatus(errno, absl::StrCat("opening ", log_file.string()));
  if (::fchmod(log_fd, 0600) != 0) {
    int err = errno;
    ::close(log_fd);
    return base::ErrnoToStatus(err, absl::StrCat("making ", log_file.string(), " private"));
  }
  int stop[2];
  if (::pipe2(stop, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(log_fd);
    return base::ErrnoToStatus(err, "creating a pipe");
  }
  std::unique_ptr<LogPump> pump(new LogPump(fd, log_fd, stop[0], stop[1], std::move(prefix), live));
  pump->thread_ = std::thread(&LogPump::Loop, pump.get());
  return pump;
}

LogPump::LogPump(int fd, int log_fd, int stop_read, int stop_write, std::string prefix,
                 LineStream* live)
    : fd_(fd),
      log_fd_(log_fd),
      stop_read_(stop_read),
      stop_write_(stop_write),
      prefix_(std::move(prefix)),
      live_(live) {}

LogPump::~LogPump() {
  Finish();
  ::close(log_fd_);
  ::close(stop_read_);
  ::close(stop_write_);
}

void LogPump::Finish() {
  if (!thread_.joinable()) return;
  char byte = 0;
  while (::write(stop_write_, &byte, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
}

void LogPump::Loop() {
  pollfd fds[2] = {{.fd = fd_, .events = POLLIN, .revents = 0},
                   {.fd = stop_read_, .events = POLLIN, .revents = 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      TP_LOG(ERROR, "polling the output of {}: {}", prefix_, std::strerror(errno));
      break;
    }
    if (fds[0].revents != 0) {
      if (!ReadOnce()) break;
      continue;
    }
    if (fds[1].revents != 0) {
      // A process the replica left behind may still hold the pipe open: take
      // what is there without waiting for an end of file that may never come.
      ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK);
      while (ReadOnce()) {
      }
      break;
    }
  }
  EmitLines(/*flush_partial=*/true);
}

bool LogPump::ReadOnce() {
  char buf[16384];
  ssize_t n = ::read(fd_, buf, sizeof(buf));
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  std::string_view data(buf, static_cast<size_t>(n));
  while (!data.empty()) {
    // The file gets the bytes as they come, not whole lines, so nothing is
    // lost if the supervisor dies mid-line.
    ssize_t written = ::write(log_fd_, data.data(), data.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) {
      TP_LOG(ERROR, "writing the log of {}: {}", prefix_, std::strerror(errno));
      break;
    }
    data.remove_prefix(static_cast<size_t>(written));
  }
  pending_.append(buf, static_cast<size_t>(n));
  EmitLines(/*flush_partial=*/false);
  return true;
}

void LogPump::EmitLines(bool flush_partial) {
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (live_ != nullptr)
      live_->WriteOutput(prefix_, std::string_view(pending_).substr(start, nl - start));
  }
  pending_.erase(0, start);
  if (!pending_.empty() && (flush_partial || pending_.size() >= kMaxLine)) {
    if (live_ != nullptr) live_->WriteOutput(prefix_, pending_);
    pending_.clear();
  }
}

}  // namespace trainpkg::sdk::internal
