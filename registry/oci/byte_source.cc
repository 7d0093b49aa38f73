#include "registry/oci/byte_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "base/file_util.h"
#include "base/unique_fd.h"
#include "fmt/format.h"

namespace trainpkg::oci {
namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(base::UniqueFd fd, std::filesystem::path path)
      : fd_(std::move(fd)), path_(std::move(path)) {}

  absl::StatusOr<size_t> Read(std::span<char> buffer) override {
    ssize_t n;
    do {
      n = ::read(fd_.get(), buffer.data(), buffer.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", path_.string()));
    return static_cast<size_t>(n);
  }

 private:
  base::UniqueFd fd_;
  std::filesystem::path path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::filesystem::path& path) {
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  // Read once, front to back: tell the kernel to read ahead generously.
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::make_unique<FileSource>(std::move(fd), path);
}

}  // namespace trainpkg::oci
