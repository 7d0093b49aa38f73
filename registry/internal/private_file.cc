#include "registry/internal/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::registry::internal {

absl::Status WritePrivateFileAtomic(const std::filesystem::path& path, std::string_view contents) {
  std::filesystem::path dir = path.parent_path();
  if (!dir.empty() && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return base::ErrnoToStatus(errno, fmt::format("creating {}", dir.string()));
  }
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp.{}.{}", ::getpid(), std::random_device{}());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating {}", tmp.string()));
  absl::Status status;
  std::string_view rest = contents;
  while (status.ok() && !rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) status = base::ErrnoToStatus(errno, fmt::format("writing {}", tmp.string()));
    if (n > 0) rest.remove_prefix(static_cast<size_t>(n));
  }
  if (status.ok() && ::fsync(fd) != 0) {
    status = base::ErrnoToStatus(errno, fmt::format("syncing {}", tmp.string()));
  }
  ::close(fd);
  if (status.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    status = base::ErrnoToStatus(errno, fmt::format("replacing {}", path.string()));
  }
  if (!status.ok()) ::unlink(tmp.c_str());
  return status;
}

}  // namespace trainpkg::registry::internal
