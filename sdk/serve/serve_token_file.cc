#include "sdk/serve/serve_token_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>

#include "absl/strings/escaping.h"
#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::sdk::serve {
namespace {

constexpr size_t kTokenBytes = 32;

absl::Status WriteAll(int fd, std::string_view data, const std::filesystem::path& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::ErrnoToStatus(errno, fmt::format("writing {}", path.string()));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> GenerateServeToken() {
  std::array<char, kTokenBytes> bytes{};
  size_t filled = 0;
  while (filled < bytes.size()) {
    ssize_t n = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::ErrnoToStatus(errno, "getrandom for the serve token");
    filled += static_cast<size_t>(n);
  }
  std::string token;
  // base64url: the token goes into a header and a file as it is.
  absl::WebSafeBase64Escape(std::string(bytes.data(), bytes.size()), &token);
  return token;
}

absl::StatusOr<ServeTokenFile> ServeTokenFile::Write(const std::filesystem::path& path,
                                                     const std::string& token) {
  const std::filesystem::path dir = path.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(fmt::format("creating {}: {}", dir.string(), ec.message()));
  }
  // Private, so another local user can neither read the token nor replace
  // the file under the client that reads it.
  if (::chmod(dir.c_str(), 0700) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("making {} private (0700)", dir.string()));
  }
  // Removed and made anew with O_EXCL | O_NOFOLLOW: whatever was at the path,
  // a symlink included, cannot redirect the write.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return base::ErrnoToStatus(errno, fmt::format("removing the stale {}", path.string()));
  }
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating {}", path.string()));
  absl::Status status = WriteAll(fd, token + "\n", path);
  if (status.ok() && ::fsync(fd) != 0) {
    status = base::ErrnoToStatus(errno, fmt::format("syncing {}", path.string()));
  }
  ::close(fd);
  if (!status.ok()) {
    ::unlink(path.c_str());
    return status;
  }
  return ServeTokenFile(path);
}

ServeTokenFile::ServeTokenFile(ServeTokenFile&& other) noexcept
    : path_(std::exchange(other.path_, {})) {}

ServeTokenFile& ServeTokenFile::operator=(ServeTokenFile&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) ::unlink(path_.c_str());
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

ServeTokenFile::~ServeTokenFile() {
  // The token is only good while this serve runs.
  if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace trainpkg::sdk::serve
