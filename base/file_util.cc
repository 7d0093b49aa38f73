#include "base/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/private_file.h"

namespace trainpkg::base {
namespace {

absl::Status WriteAll(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoToStatus(errno, absl::StrCat("writing ", path.string()));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

// Who may read a file WriteFileAtomic or AppendToFile writes.
enum class FileAccess {
  kDefault,    // created 0644 less the umask; an existing file keeps its mode
  kOwnerOnly,  // exactly 0600 whatever the umask, an existing file included
};

mode_t CreateMode(FileAccess access) { return access == FileAccess::kOwnerOnly ? 0600 : 0644; }

// kOwnerOnly: sets the mode to exactly 0600 (the umask may have narrowed it,
// an existing file may be wider).
absl::Status RestrictMode(int fd, FileAccess access, const std::filesystem::path& path) {
  if (access != FileAccess::kOwnerOnly || ::fchmod(fd, 0600) == 0) return absl::OkStatus();
  return ErrnoToStatus(errno, absl::StrCat("making ", path.string(), " private (0600)"));
}

absl::Status WriteAtomic(const std::filesystem::path& path, std::string_view contents,
                         FileSync sync, FileAccess access);
absl::Status Append(const std::filesystem::path& path, std::string_view contents,
                    FileAccess access);

}  // namespace

absl::Status ErrnoToStatus(int err, std::string_view what) {
  std::string message = absl::StrCat(std::string(what), ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case EINVAL:
    case ENOTDIR:
    case EISDIR:
      return absl::InvalidArgumentError(message);
    case ENOSPC:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::StatusOr<std::string> ReadFile(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoToStatus(errno, absl::StrCat("opening ", path.string()));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoToStatus(err, absl::StrCat("reading ", path.string()));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

absl::Status WriteFileAtomic(const std::filesystem::path& path, std::string_view contents,
                             FileSync sync) {
  return WriteAtomic(path, contents, sync, FileAccess::kDefault);
}

absl::Status WriteFileAtomicPrivate(const std::filesystem::path& path, std::string_view contents,
                                    FileSync sync) {
  return WriteAtomic(path, contents, sync, FileAccess::kOwnerOnly);
}

absl::Status AppendToFile(const std::filesystem::path& path, std::string_view contents) {
  return Append(path, contents, FileAccess::kDefault);
}

absl::Status AppendToFilePrivate(const std::filesystem::path& path, std::string_view contents) {
  return Append(path, contents, FileAccess::kOwnerOnly);
}

namespace {

absl::Status WriteAtomic(const std::filesystem::path& path, std::string_view contents,
                         FileSync sync, FileAccess access) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("creating directory ", path.parent_path().string(), ": ", ec.message()));
    }
  }
  std::random_device rd;
  std::filesystem::path tmp = path;
  tmp += absl::StrCat(".tmp.", ::getpid(), ".", rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, CreateMode(access));
  if (fd < 0) return ErrnoToStatus(errno, absl::StrCat("creating ", tmp.string()));
  absl::Status status = RestrictMode(fd, access, tmp);
  if (status.ok()) status = WriteAll(fd, contents, tmp);
  if (status.ok() && sync == FileSync::kSync && ::fsync(fd) != 0) {
    status = ErrnoToStatus(errno, absl::StrCat("syncing ", tmp.string()));
  }
  ::close(fd);
  if (status.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    status = ErrnoToStatus(errno, absl::StrCat("renaming ", tmp.string(), " to ", path.string()));
  }
  if (!status.ok()) ::unlink(tmp.c_str());
  return status;
}

absl::Status Append(const std::filesystem::path& path, std::string_view contents,
                    FileAccess access) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, CreateMode(access));
  if (fd < 0) return ErrnoToStatus(errno, absl::StrCat("opening ", path.string()));
  absl::Status status = RestrictMode(fd, access, path);
  if (status.ok()) status = WriteAll(fd, contents, path);
  ::close(fd);
  return status;
}

}  // namespace

}  // namespace trainpkg::base
