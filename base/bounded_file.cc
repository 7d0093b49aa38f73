#include "base/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::base {

absl::StatusOr<std::string> ReadRegularFile(const std::filesystem::path& path,
                                            const BoundedReadOptions& options) {
  const std::string_view what = options.what.empty() ? "file" : options.what;
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it.
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
  if (!options.follow_symlinks) flags |= O_NOFOLLOW;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0 && errno == ELOOP && !options.follow_symlinks) {
    return absl::InvalidArgumentError(
        fmt::format("{}: a symbolic link; {} must be a regular file", path.string(), what));
  }
  if (fd < 0) return ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  std::string text;
  absl::Status status;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    status = ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError(
        fmt::format("{}: not a regular file; {} must be a regular file", path.string(), what));
  } else {
    char buffer[1 << 16];
    while (status.ok()) {
      const ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
      } else if (n == 0) {
        break;
      } else if (text.size() + static_cast<size_t>(n) > options.max_bytes) {
        status =
            absl::InvalidArgumentError(fmt::format("{}: larger than {} bytes, the most {} may have",
                                                   path.string(), options.max_bytes, what));
      } else {
        text.append(buffer, static_cast<size_t>(n));
      }
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

}  // namespace trainpkg::base
