#include "sdk/vertex/local_serve_token.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::sdk::vertex {
namespace {

constexpr size_t kMinTokenSize = 32;
constexpr size_t kMaxTokenSize = 512;
constexpr std::string_view kHttp = "http://";

bool IsLocalhostName(std::string_view host) {
  return absl::EqualsIgnoreCase(std::string(host), "localhost");
}

// The hosts whose token files may hold the token of a serve at `host`.
std::vector<std::string> HostAliases(std::string_view host) {
  std::vector<std::string> hosts = {std::string(host)};
  // The token file is named after the host the serve was given; a client
  // may spell the same loopback serve another way.
  if (host == "127.0.0.1" || host == "::1" || IsLocalhostName(host)) {
    for (const char* alias : {"127.0.0.1", "localhost", "::1"}) {
      if (std::find(hosts.begin(), hosts.end(), alias) == hosts.end()) hosts.push_back(alias);
    }
  }
  return hosts;
}

// Reads a small regular file without following a symlink at `path`.
absl::StatusOr<std::string> ReadSmallFile(const std::filesystem::path& path) {
  // O_NOFOLLOW: a planted symlink cannot make another file's bytes go out as
  // the token; O_NONBLOCK: a FIFO planted there cannot hang the open.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  struct stat st {};
  std::string text;
  absl::Status status;
  if (::fstat(fd, &st) != 0) {
    status = base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
  } else if (!S_ISREG(st.st_mode) || st.st_size > static_cast<off_t>(kMaxTokenSize + 1)) {
    status = absl::FailedPreconditionError(
        fmt::format("{}: not a trainpkg serve token file (a regular file of at most {} bytes)",
                    path.string(), kMaxTokenSize + 1));
  } else {
    text.resize(static_cast<size_t>(st.st_size));
    ssize_t n = ::read(fd, text.data(), text.size());
    if (n < 0) {
      status = base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
    } else {
      text.resize(static_cast<size_t>(n));
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (IsLocalhostName(host) || host == "::1") return true;
  in_addr address{};
  return inet_pton(AF_INET, std::string(host).c_str(), &address) == 1 &&
         (ntohl(address.s_addr) >> 24) == 127;
}

std::filesystem::path LocalServeTokenPath(const std::filesystem::path& home, std::string_view host,
                                          int port) {
  return home / "serve" /
         fmt::format("{}_{}.token", absl::AsciiStrToLower(std::string(host)), port);
}

std::optional<LoopbackEndpoint> ParseLoopbackEndpoint(std::string_view endpoint) {
  if (endpoint.size() < kHttp.size() ||
      !absl::EqualsIgnoreCase(std::string(endpoint.substr(0, kHttp.size())), std::string(kHttp))) {
    return std::nullopt;
  }
  std::string_view authority = endpoint.substr(kHttp.size());
  authority = authority.substr(0, authority.find_first_of("/?#"));
  // Userinfo is refused: in "http://127.0.0.1@host/" the host is after the '@'.
  if (authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view host = authority;
  std::string_view port_text;
  if (authority.starts_with('[')) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return std::nullopt;
      port_text = rest.substr(1);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  int port = 80;
  if (!port_text.empty() &&
      (!absl::SimpleAtoi(std::string(port_text), &port) || port <= 0 || port > 65535)) {
    return std::nullopt;
  }
  // A token read from this machine's disk is only ever sent to loopback.
  if (!IsLoopbackHost(host)) return std::nullopt;
  return LoopbackEndpoint{.host = std::string(host), .port = port};
}

bool IsWellFormedServeToken(std::string_view token) {
  return token.size() >= kMinTokenSize && token.size() <= kMaxTokenSize &&
         std::all_of(token.begin(), token.end(), [](char c) {
           return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
         });
}

absl::StatusOr<std::string> ReadLocalServeToken(const std::filesystem::path& home,
                                                const LoopbackEndpoint& endpoint) {
  const std::vector<std::string> hosts = HostAliases(endpoint.host);
  for (const std::string& host : hosts) {
    const std::filesystem::path path = LocalServeTokenPath(home, host, endpoint.port);
    absl::StatusOr<std::string> text = ReadSmallFile(path);
    if (absl::IsNotFound(text.status())) continue;
    if (!text.ok()) return text.status();
    const std::string token(absl::StripTrailingAsciiWhitespace(*text));
    if (!IsWellFormedServeToken(token)) {
      return absl::FailedPreconditionError(fmt::format(
          "{}: does not hold a trainpkg serve token ({} to {} characters of A-Z a-z 0-9 - _)",
          path.string(), kMinTokenSize, kMaxTokenSize));
    }
    return token;
  }
  return absl::NotFoundError(fmt::format(
      "no trainpkg serve token for {}:{}: {} does not exist (serve writes it while it runs, under "
      "the trainpkg home $TRAINPKG_HOME, else $HOME/.trainpkg)",
      endpoint.host, endpoint.port,
      LocalServeTokenPath(home, endpoint.host, endpoint.port).string()));
}

}  // namespace trainpkg::sdk::vertex
