#include "packager/run/transient_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {

namespace fs = std::filesystem;

absl::StatusOr<TransientFile> TransientFile::Write(const fs::path& path,
                                                   std::string_view contents) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", path.parent_path().string()));
  }
  absl::StatusOr<LedgerEntry> entry =
      RecordHostResource({.kind = HostResourceKind::kFile, .name = path.string(), .runtime = ""});
  if (!entry.ok()) return entry.status();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating {}", path.string()));
  TransientFile file(path, *std::move(entry));
  ::fchmod(fd, 0644);  // whatever the umask: containers read it as any user
  for (size_t done = 0; done < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return base::ErrnoToStatus(err, fmt::format("writing {}", path.string()));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return base::ErrnoToStatus(errno, fmt::format("writing {}", path.string()));
  return file;
}

TransientFile::~TransientFile() {
  if (path_.empty()) return;
  ::unlink(path_.c_str());
  entry_.Release();
}

absl::StatusOr<TransientDirectory> TransientDirectory::Create(const fs::path& path, mode_t mode) {
  absl::StatusOr<LedgerEntry> entry = RecordHostResource(
      {.kind = HostResourceKind::kDirectory, .name = path.string(), .runtime = ""});
  if (!entry.ok()) return entry.status();
  if (::mkdir(path.c_str(), 0700) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("creating {}", path.string()));
  }
  TransientDirectory directory(path, *std::move(entry));
  if (::chmod(path.c_str(), mode) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("setting the mode of {}", path.string()));
  }
  return directory;
}

TransientDirectory::~TransientDirectory() {
  if (path_.empty()) return;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(path_, ec)) {
    fs::remove(entry.path(), ec);
  }
  ::rmdir(path_.c_str());
  entry_.Release();
}

}  // namespace trainpkg::packager::run
