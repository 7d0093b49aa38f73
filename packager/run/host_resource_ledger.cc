#include "packager/run/host_resource_ledger.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/log.h"
#include "fmt/format.h"
#include "packager/run/internal/child_exit.h"

namespace trainpkg::packager::run {
namespace {

namespace fs = std::filesystem;

constexpr char kWatchdogFile[] = "watchdog";

const char* KindName(HostResourceKind kind) {
  switch (kind) {
    case HostResourceKind::kContainer:
      return "container";
    case HostResourceKind::kMount:
      return "mount";
    case HostResourceKind::kNetworkNamespace:
      return "netns";
    case HostResourceKind::kFile:
      return "file";
    case HostResourceKind::kDirectory:
      return "dir";
  }
  return "";
}

// The first 4 KiB of a file ("" when unreadable). open/read only: no
// iostreams, whose locale lock a fork may have copied while held (the
// watchdog is a child of a multi-threaded process).
std::string ReadSmallFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text(4096, '\0');
  size_t size = 0;
  for (ssize_t n; size < text.size() && (n = ::read(fd, &text[size], text.size() - size)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    size += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(size);
  return text;
}

// /proc/<pid>/stat field 22 (clock ticks after boot); 0 when there is no
// such process or it is a zombie.
uint64_t StartTime(pid_t pid) {
  const std::string stat = ReadSmallFile(fmt::format("/proc/{}/stat", pid));
  const size_t comm_end = stat.rfind(')');
  if (comm_end == std::string::npos || comm_end + 2 >= stat.size()) return 0;
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(comm_end + 2), ' ');
  // fields[0] is field 3 (the state).
  uint64_t start = 0;
  if (fields.size() < 20 || fields[0] == "Z" || !absl::SimpleAtoi(fields[19], &start)) return 0;
  return start;
}

// Runs argv with stdio on /dev/null and waits. fork + exec only, so it is
// safe in the watchdog (a child of a multi-threaded process).
void RunQuietly(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  internal::WaitChildExit(pid);
}

struct Record {
  uint64_t sequence = 0;
  fs::path file;
  HostResource resource;
};

std::vector<Record> ReadLedgerRecords(const fs::path& owner) {
  std::vector<Record> records;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(owner, ec)) {
    const std::string file = entry.path().filename().string();
    Record record{.file = entry.path(), .resource = {}};
    if (file.size() < 2 || file[0] != 'r' || !absl::SimpleAtoi(file.substr(1), &record.sequence)) {
      continue;
    }
    const std::vector<std::string> lines = absl::StrSplit(ReadSmallFile(entry.path()), '\n');
    if (lines.size() < 3) continue;
    const std::string& kind = lines[0];
    record.resource.name = lines[1];
    record.resource.runtime = lines[2];
    if (record.resource.name.empty()) continue;
    if (kind == "container") {
      record.resource.kind = HostResourceKind::kContainer;
    } else if (kind == "mount") {
      record.resource.kind = HostResourceKind::kMount;
    } else if (kind == "netns") {
      record.resource.kind = HostResourceKind::kNetworkNamespace;
    } else if (kind == "file") {
      record.resource.kind = HostResourceKind::kFile;
    } else if (kind == "dir") {
      record.resource.kind = HostResourceKind::kDirectory;
    } else {
      continue;
    }
    records.push_back(std::move(record));
  }
  // Containers, then mounts, then namespaces, then files; newest first
  // within each. Each kind keeps the next busy (a running container pins
  // its rootfs mount and its namespace; a mount can cover recorded files),
  // and a newer resource may sit inside an older one.
  std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
    if (a.resource.kind != b.resource.kind) return a.resource.kind < b.resource.kind;
    return a.sequence > b.sequence;
  });
  return records;
}

// Unlinks what `path` holds (files: nothing nests there), then `path`.
// opendir/unlinkat only, for the same reason as ReadSmallFile.
void RemoveFlatDirectory(const std::string& path) {
  if (DIR* dir = ::opendir(path.c_str())) {
    while (dirent* entry = ::readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name == "." || name == "..") continue;
      ::unlinkat(::dirfd(dir), entry->d_name, 0);
    }
    ::closedir(dir);
  }
  ::rmdir(path.c_str());
}

void Remove(const HostResource& resource) {
  switch (resource.kind) {
    case HostResourceKind::kContainer:
      RunQuietly({resource.runtime.empty() ? "runc" : resource.runtime, "delete", "--force",
                  resource.name});
      break;
    case HostResourceKind::kMount:
      ::umount2(resource.name.c_str(), MNT_DETACH);
      break;
    case HostResourceKind::kNetworkNamespace:
      ::umount2(resource.name.c_str(), MNT_DETACH);
      ::unlink(resource.name.c_str());
      break;
    case HostResourceKind::kFile:
      ::unlink(resource.name.c_str());
      break;
    case HostResourceKind::kDirectory:
      RemoveFlatDirectory(resource.name);
      break;
  }
}

// Removes what `owner` recorded, then its directory. Returns how many
// resources were recorded.
size_t RemoveOwner(const fs::path& owner) {
  const std::vector<Record> records = ReadLedgerRecords(owner);
  for (const Record& record : records) {
    Remove(record.resource);
    ::unlink(record.file.c_str());
  }
  ::unlink((owner / kWatchdogFile).c_str());
  ::rmdir(owner.c_str());
  return records.size();
}

// The watchdog: waits for end-of-file on `fd` (the owner is gone), then
// removes what the owner left. Never returns.
[[noreturn]] void Watch(int fd, const fs::path& owner) {
  // Its own session, with the terminal's signals ignored: a Ctrl-C that
  // kills the owner's process group must not kill the one process that
  // cleans up after it.
  ::setsid();
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(signal, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::prctl(PR_SET_NAME, "trainpkg-watch", 0, 0, 0);
  const int null_fd = ::open("/dev/null", O_RDWR);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(null_fd, STDOUT_FILENO);
  ::dup2(null_fd, STDERR_FILENO);
  ::dup2(fd, 3);
  ::close_range(4, ~0U, 0);  // the owner's other files, the pipe's write end among them
  char byte;
  for (;;) {
    const ssize_t n = ::read(3, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  RemoveOwner(owner);
  ::_exit(0);
}

// This process's place in the ledger: its directory and the pipe to its
// watchdog. Reset in a forked child (another pid).
class Ledger {
 public:
  absl::StatusOr<fs::path> NewRecordPath() {
    std::lock_guard<std::mutex> lock(mu_);
    if (owner_pid_ != ::getpid()) {
      // A forked child must not keep its parent's watchdog waiting.
      if (pipe_fd_ >= 0) ::close(pipe_fd_);
      pipe_fd_ = -1;
      owner_pid_ = 0;
      absl::Status started = StartWatchdog();
      if (!started.ok()) return started;
    }
    return dir_ / fmt::format("r{}", ++sequence_);
  }

 private:
  absl::Status StartWatchdog() {
    const pid_t pid = ::getpid();
    const uint64_t start = StartTime(pid);
    if (start == 0) return absl::InternalError("cannot read this process's start time in /proc");
    const fs::path dir = fs::path(kHostResourceLedgerDir) / fmt::format("{}-{}", pid, start);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", dir.string()));
    fs::permissions(fs::path(kHostResourceLedgerDir).parent_path(), fs::perms(0700), ec);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return base::ErrnoToStatus(errno, "pipe for the watchdog");
    const pid_t watchdog = ::fork();
    if (watchdog < 0) {
      const int err = errno;
      ::close(fds[0]);
      ::close(fds[1]);
      return base::ErrnoToStatus(err, "forking the watchdog of containers and mounts");
    }
    if (watchdog == 0) Watch(fds[0], dir);
    ::close(fds[0]);
    pipe_fd_ = fds[1];
    owner_pid_ = pid;
    dir_ = dir;
    return base::WriteFileAtomic(dir / kWatchdogFile, std::to_string(watchdog),
                                 base::FileSync::kNoSync);
  }

  std::mutex mu_;
  pid_t owner_pid_ = 0;
  int pipe_fd_ = -1;
  fs::path dir_;
  uint64_t sequence_ = 0;
};

Ledger& TheLedger() {
  // Never destroyed: the pipe to the watchdog must stay open until the
  // process itself is gone, past static destructors and exit handlers.
  static Ledger* ledger = new Ledger;
  return *ledger;
}

}  // namespace

LedgerEntry& LedgerEntry::operator=(LedgerEntry&& other) noexcept {
  if (this != &other) {
    Release();
    record_ = std::move(other.record_);
    other.record_.clear();
  }
  return *this;
}

void LedgerEntry::Release() {
  if (record_.empty()) return;
  ::unlink(record_.c_str());
  record_.clear();
}

absl::StatusOr<LedgerEntry> RecordHostResource(const HostResource& resource) {
  for (const std::string* field : {&resource.name, &resource.runtime}) {
    if (field->find('\n') != std::string::npos) {
      return absl::InvalidArgumentError(
          fmt::format("cannot record the {} \"{}\": it holds a newline", KindName(resource.kind),
                      resource.name));
    }
  }
  if (resource.name.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("cannot record a {} without a name", KindName(resource.kind)));
  }
  absl::StatusOr<fs::path> record = TheLedger().NewRecordPath();
  if (!record.ok()) return record.status();
  absl::Status written = base::WriteFileAtomic(
      *record,
      fmt::format("{}\n{}\n{}\n", KindName(resource.kind), resource.name, resource.runtime),
      base::FileSync::kNoSync);
  if (!written.ok()) return written;
  return LedgerEntry(*record);
}

void SweepOrphanedHostResources() {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(kHostResourceLedgerDir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t dash = name.find('-');
    int pid = 0;
    uint64_t start = 0;
    if (dash == std::string::npos || !absl::SimpleAtoi(name.substr(0, dash), &pid) ||
        !absl::SimpleAtoi(name.substr(dash + 1), &start)) {
      continue;
    }
    // pid and start time together: a pid reused by another process since does
    // not keep a dead owner's ledger alive.
    if (pid > 0 && StartTime(pid) == start) continue;  // its owner lives
    const size_t removed = RemoveOwner(entry.path());
    if (removed > 0) {
      TP_LOG(INFO, "removed {} container(s), mount(s) or network namespace(s) left by process {}",
             removed, pid);
    }
  }
}

}  // namespace trainpkg::packager::run
