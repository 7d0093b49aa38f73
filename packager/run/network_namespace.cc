#include "packager/run/network_namespace.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "base/file_util.h"
#include "base/log.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

namespace fs = std::filesystem;

bool ValidNamespaceName(const std::string& name) {
  if (name.empty() || name[0] == '.' || name.size() > 200) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// Sets the loopback interface of the calling thread's namespace up.
absl::Status LoopbackUp() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return base::ErrnoToStatus(errno, "socket in the new network namespace");
  struct ifreq request;
  std::memset(&request, 0, sizeof(request));
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  absl::Status status;
  if (::ioctl(fd, SIOCGIFFLAGS, &request) != 0) {
    status = base::ErrnoToStatus(errno, "reading the flags of lo");
  } else {
    request.ifr_flags |= IFF_UP;
    if (::ioctl(fd, SIOCSIFFLAGS, &request) != 0) {
      status = base::ErrnoToStatus(errno, "setting lo up");
    }
  }
  ::close(fd);
  return status;
}

// In a thread of its own (unshare(CLONE_NEWNET) moves only the calling
// thread): a new namespace, lo up, bind-mounted at `path`.
absl::Status MakeNamespace(const fs::path& path) {
  absl::Status status;
  std::thread maker([&status, &path] {
    if (::unshare(CLONE_NEWNET) != 0) {
      status = base::ErrnoToStatus(errno, "unshare(CLONE_NEWNET) (network namespaces need root)");
      return;
    }
    // A new namespace's lo is down; programs in RUN expect 127.0.0.1 to work.
    status = LoopbackUp();
    if (!status.ok()) return;
    // The bind mount keeps the namespace alive after this thread ends, with no
    // process in it, at a path runc and slirp4netns can join (as `ip netns
    // add` does under /run/netns).
    if (::mount("/proc/thread-self/ns/net", path.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      status = base::ErrnoToStatus(errno,
                                   fmt::format("bind-mounting the namespace at {}", path.string()));
    }
  });
  maker.join();
  return status;
}

}  // namespace

absl::StatusOr<NetworkNamespace> NetworkNamespace::Create(const std::string& name) {
  if (!ValidNamespaceName(name)) {
    return absl::InvalidArgumentError(fmt::format(
        "network namespace name \"{}\": use 1 to 200 of [A-Za-z0-9._-], not starting with '.'",
        name));
  }
  const fs::path path = fs::path(kDirectory) / name;
  std::error_code ec;
  fs::create_directories(kDirectory, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", kDirectory));
  // Recorded before the namespace exists: if this process dies before the
  // destructor runs, the ledger tells the next run what to remove.
  absl::StatusOr<LedgerEntry> entry = RecordHostResource(
      {.kind = HostResourceKind::kNetworkNamespace, .name = path.string(), .runtime = ""});
  if (!entry.ok()) return entry.status();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST) {
      entry->Release();  // the path is someone else's
      return absl::AlreadyExistsError(
          fmt::format("network namespace {} exists already", path.string()));
    }
    return base::ErrnoToStatus(err, fmt::format("creating {}", path.string()));
  }
  ::close(fd);
  absl::Status made = MakeNamespace(path);
  if (!made.ok()) {
    ::unlink(path.c_str());
    return made;
  }
  return NetworkNamespace(path, *std::move(entry));
}

NetworkNamespace::~NetworkNamespace() {
  if (path_.empty()) return;
  if (::umount2(path_.c_str(), MNT_DETACH) != 0) {
    TP_LOG(WARNING, "unmounting network namespace {}: {}", path_.string(), std::strerror(errno));
  }
  ::unlink(path_.c_str());
}

}  // namespace trainpkg::packager::run
