#include "packager/run/resolv_conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

constexpr size_t kMaxSize = 64 * 1024;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

// The address of a (trimmed) "nameserver ADDRESS" line; nullopt for other
// lines.
std::optional<std::string_view> Nameserver(std::string_view line) {
  constexpr std::string_view kKeyword = "nameserver";
  if (line.substr(0, kKeyword.size()) != kKeyword || line.size() == kKeyword.size() ||
      !IsBlank(line[kKeyword.size()])) {
    return std::nullopt;
  }
  std::string_view rest = Trim(line.substr(kKeyword.size()));
  size_t end = 0;
  while (end < rest.size() && !IsBlank(rest[end])) ++end;
  return rest.substr(0, end);
}

bool IsLoopback(std::string_view address) {
  const std::string text(address.substr(0, address.find('%')));  // fe80::1%eth0
  unsigned char bytes[16];
  if (::inet_pton(AF_INET, text.c_str(), bytes) == 1) return bytes[0] == 127;
  if (::inet_pton(AF_INET6, text.c_str(), bytes) == 1) {
    static constexpr unsigned char kLoopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::equal(bytes, bytes + 16, kLoopback);
  }
  return false;
}

// The lines of `host` that are neither comments nor blank, with the
// nameserver lines for which `keep` is false left out.
std::string Filter(std::string_view host, const std::function<bool(std::string_view)>& keep) {
  std::string out;
  for (size_t start = 0; start < host.size();) {
    size_t end = host.find('\n', start);
    if (end == std::string_view::npos) end = host.size();
    const std::string_view trimmed = Trim(host.substr(start, end - start));
    start = end + 1;
    if (trimmed.empty() || trimmed[0] == '#' || trimmed[0] == ';') continue;
    if (std::optional<std::string_view> address = Nameserver(trimmed)) {
      if (!keep(*address)) continue;
    }
    out += fmt::format("{}\n", trimmed);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> ReadHostResolvConf(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::string();
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
  std::string text(kMaxSize + 1, '\0');
  size_t size = 0;
  for (ssize_t n; size < text.size() && (n = ::read(fd, &text[size], text.size() - size)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return base::ErrnoToStatus(err, fmt::format("reading {}", path.string()));
    }
    size += static_cast<size_t>(n);
  }
  ::close(fd);
  if (size > kMaxSize) {
    return absl::InvalidArgumentError(
        fmt::format("{} is larger than {} KiB; a resolver configuration is a few lines",
                    path.string(), kMaxSize / 1024));
  }
  text.resize(size);
  return text;
}

std::string ResolvConfWithNameserver(std::string_view host, std::string_view nameserver) {
  // The given server (slirp4netns's DNS forwarder) replaces every host
  // server; the search and options lines are kept.
  return fmt::format("nameserver {}\n", nameserver) +
         Filter(host, [](std::string_view) { return false; });
}

std::string ResolvConfWithoutLoopback(std::string_view host) {
  // In the container's own network namespace 127.0.0.53 (systemd-resolved)
  // or ::1 is the container's loopback, where no resolver listens.
  return Filter(host, [](std::string_view address) { return !IsLoopback(address); });
}

}  // namespace trainpkg::packager::run
