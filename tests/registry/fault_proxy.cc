#include "tests/registry/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::registry::testing {
namespace {

constexpr size_t kBufferBytes = 64 * 1024;

// (Debian's abseil has its own string_view, so these take strings.)
bool ContainsIgnoreCase(const std::string& text, const std::string& word) {
  return absl::AsciiStrToLower(text).find(absl::AsciiStrToLower(word)) != std::string::npos;
}

bool SameName(const std::string& a, const std::string& b) { return absl::EqualsIgnoreCase(a, b); }

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Closes `fd` with a TCP reset rather than an orderly FIN.
void ResetAndClose(int fd) {
  linger hard{.l_onoff = 1, .l_linger = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
  ::close(fd);
}

// A socket read through a buffer: request and response heads, then bodies.
class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}

  // The bytes up to `delimiter`, without it ("\r\n\r\n": a head; "\r\n":
  // a line of chunked framing); nullopt at end of stream or on an error.
  std::optional<std::string> ReadUntil(const std::string& delimiter) {
    while (true) {
      size_t end = buffer_.find(delimiter);
      if (end != std::string::npos) {
        std::string text = buffer_.substr(0, end);
        buffer_.erase(0, end + delimiter.size());
        return text;
      }
      if (!Fill()) return std::nullopt;
    }
  }

  // The next byte without taking it; nullopt at end of stream.
  std::optional<char> Peek() {
    if (buffer_.empty() && !Fill()) return std::nullopt;
    return buffer_[0];
  }

  // Up to `max` bytes; empty at end of stream or on an error.
  std::string ReadSome(size_t max) {
    if (buffer_.empty() && !Fill()) return "";
    size_t n = std::min(max, buffer_.size());
    std::string out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return out;
  }

 private:
  bool Fill() {
    char chunk[kBufferBytes];
    ssize_t n;
    do {
      n = ::recv(fd_, chunk, sizeof(chunk), 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  std::string buffer_;
};

// A request or response head: the first line and the header fields.
struct Head {
  std::string first_line;
  std::vector<std::pair<std::string, std::string>> fields;

  static Head Parse(const std::string& text) {
    Head head;
    std::vector<std::string> lines = absl::StrSplit(text, "\r\n");
    head.first_line = lines.empty() ? "" : lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      size_t colon = lines[i].find(':');
      if (colon == std::string::npos) continue;
      std::string value = lines[i].substr(colon + 1);
      absl::StripAsciiWhitespace(&value);
      head.fields.emplace_back(lines[i].substr(0, colon), value);
    }
    return head;
  }

  std::optional<std::string> Get(const std::string& name) const {
    for (const auto& [n, v] : fields) {
      if (SameName(n, name)) return v;
    }
    return std::nullopt;
  }
  void Remove(const std::string& name) {
    std::erase_if(fields, [&](const auto& f) { return SameName(f.first, name); });
  }
  void Set(const std::string& name, std::string value) {
    Remove(name);
    fields.emplace_back(name, std::move(value));
  }
  std::string Serialize() const {
    std::string out = first_line + "\r\n";
    for (const auto& [n, v] : fields) out += n + ": " + v + "\r\n";
    return out + "\r\n";
  }
  // "Transfer-Encoding: chunked".
  bool Chunked() const {
    return ContainsIgnoreCase(Get("Transfer-Encoding").value_or(""), "chunked");
  }
  std::optional<uint64_t> ContentLength() const {
    uint64_t n = 0;
    std::optional<std::string> text = Get("Content-Length");
    if (!text.has_value() || !absl::SimpleAtoi(*text, &n)) return std::nullopt;
    return n;
  }
};

std::string ErrorCodeFor(int status) {
  switch (status) {
    case 429:
      return "TOOMANYREQUESTS";
    case 503:
      return "UNAVAILABLE";
    default:
      return "UNKNOWN";
  }
}

std::string InjectedResponse(const FaultRule& rule, bool close) {
  std::string body = fmt::format(
      R"({{"errors":[{{"code":"{}","message":"injected by the test proxy","detail":null}}]}})",
      ErrorCodeFor(rule.status));
  std::string out = fmt::format(
      "HTTP/1.1 {} Injected\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
      rule.status, body.size());
  if (!rule.retry_after.empty()) out += "Retry-After: " + rule.retry_after + "\r\n";
  if (close) out += "Connection: close\r\n";
  return out + "\r\n" + body;
}

// A digest of the right form naming content nobody sent.
constexpr char kWrongDigest[] =
    "sha256:0000000000000000000000000000000000000000000000000000000000000bad";

}  // namespace

FaultProxy::~FaultProxy() { Stop(); }

absl::Status FaultProxy::Start(const std::string& upstream) {
  size_t colon = upstream.rfind(':');
  if (colon == std::string::npos || upstream.substr(0, colon) != "127.0.0.1" ||
      !absl::SimpleAtoi(upstream.substr(colon + 1), &upstream_port_)) {
    return absl::InvalidArgumentError(
        fmt::format("fault proxy upstream \"{}\": expected 127.0.0.1:<port>", upstream));
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return base::ErrnoToStatus(errno, "fault proxy socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    absl::Status status = base::ErrnoToStatus(errno, "fault proxy listen on 127.0.0.1");
    ::close(listen_fd_);
    listen_fd_ = -1;
    return status;
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return absl::OkStatus();
}

void FaultProxy::Stop() {
  if (listen_fd_ < 0) return;
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  stop_cv_.notify_all();
  for (std::thread& worker : workers) worker.join();
  ::close(listen_fd_);
  listen_fd_ = -1;
}

void FaultProxy::AddRule(FaultRule rule) {
  std::lock_guard<std::mutex> lock(mu_);
  std::regex pattern(rule.path_pattern);
  rules_.push_back(Rule{std::move(rule), std::move(pattern), 0});
}

void FaultProxy::ClearRules() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
}

std::vector<ProxiedRequest> FaultProxy::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

int FaultProxy::Count(const std::string& method, const std::string& pattern) const {
  std::regex re(pattern);
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(std::count_if(log_.begin(), log_.end(), [&](const ProxiedRequest& r) {
    return (method.empty() || r.method == method) && std::regex_search(r.target, re);
  }));
}

void FaultProxy::AcceptLoop() {
  while (!stopping_) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    Track(fd);
    std::lock_guard<std::mutex> lock(mu_);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

std::optional<FaultRule> FaultProxy::Match(const std::string& method, const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<FaultRule> chosen;
  for (Rule& rule : rules_) {
    if (!rule.spec.method.empty() && rule.spec.method != method) continue;
    if (!std::regex_search(target, rule.pattern)) continue;
    ++rule.matches;
    bool fires = rule.spec.occurrence == 0 || rule.matches == rule.spec.occurrence;
    if (fires && !chosen.has_value()) chosen = rule.spec;
  }
  if (chosen.has_value()) ++fired_;
  return chosen;
}

size_t FaultProxy::Log(ProxiedRequest request) {
  std::lock_guard<std::mutex> lock(mu_);
  log_.push_back(std::move(request));
  return log_.size() - 1;
}

void FaultProxy::UpdateLog(size_t index, uint64_t body_bytes, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  log_[index].body_bytes = body_bytes;
  log_[index].status = status;
}

int FaultProxy::ConnectUpstream() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(upstream_port_));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  Track(fd);
  return fd;
}

void FaultProxy::Track(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.insert(fd);
  if (stopping_) ::shutdown(fd, SHUT_RDWR);
}

void FaultProxy::Untrack(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.erase(fd);
}

void FaultProxy::Pause(absl::Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  stop_cv_.wait_for(lock, absl::ToChronoMilliseconds(d), [this] { return stopping_.load(); });
}

// One client connection: requests in turn (keep-alive), each forwarded over
// one upstream connection unless a fault answers or cuts it.
void FaultProxy::Serve(int client_fd) {
  Reader client(client_fd);
  int upstream_fd = -1;
  std::optional<Reader> upstream;
  auto close_fd = [this](int& fd, bool reset) {
    if (fd < 0) return;
    Untrack(fd);
    if (reset) {
      ResetAndClose(fd);
    } else {
      ::close(fd);
    }
    fd = -1;
  };
  // Copies `length` body bytes from `from` to `to_fd` (-1: discards them),
  // calling `edit` on each piece with its offset; false when `from` ended
  // early. `stop_at` (when set) stops after that many bytes.
  auto relay = [](Reader& from, int to_fd, uint64_t length, std::optional<uint64_t> stop_at,
                  const std::function<void(std::string&, uint64_t)>& edit, uint64_t& moved) {
    moved = 0;
    uint64_t limit = stop_at.has_value() ? std::min(length, *stop_at) : length;
    while (moved < limit) {
      std::string piece = from.ReadSome(static_cast<size_t>(std::min<uint64_t>(kBufferBytes, limit - moved)));
      if (piece.empty()) return false;
      if (edit) edit(piece, moved);
      if (to_fd >= 0) WriteAll(to_fd, piece);
      moved += piece.size();
    }
    return true;
  };
  auto flip_at = [](uint64_t at) {
    return [at](std::string& piece, uint64_t offset) {
      if (at >= offset && at < offset + piece.size()) piece[at - offset] ^= 0x01;
    };
  };

  while (!stopping_) {
    // A TLS ClientHello (a client probing https first) gets what a plain
    // HTTP server answers: 400, then the connection closes.
    std::optional<char> first = client.Peek();
    if (first == char{0x16}) {
      ++tls_hellos_;
      WriteAll(client_fd, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      break;
    }
    std::optional<std::string> head_text = client.ReadUntil("\r\n\r\n");
    if (!head_text.has_value()) break;
    Head request = Head::Parse(*head_text);
    std::vector<std::string> parts = absl::StrSplit(request.first_line, ' ');
    if (parts.size() != 3) break;
    const std::string method = parts[0];
    const std::string target = parts[1];
    if (request.Chunked()) {
      WriteAll(client_fd, "HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n");
      break;  // our client always sends lengths; the proxy does not parse chunked requests
    }
    uint64_t length = request.ContentLength().value_or(0);
    bool expect = ContainsIgnoreCase(request.Get("Expect").value_or(""), "100-continue");
    request.Remove("Expect");
    std::optional<FaultRule> fault = Match(method, target);
    size_t index = Log(ProxiedRequest{.method = method,
                                      .target = target,
                                      .content_range = request.Get("Content-Range").value_or(""),
                                      .body_bytes = 0,
                                      .expect_continue = expect,
                                      .status = 0,
                                      .fault = fault ? std::optional(fault->kind) : std::nullopt});
    uint64_t moved = 0;
    if (fault && fault->kind == FaultKind::kStatus) {
      // Behind Expect the body never comes: answer and close. Otherwise
      // read the body first, so the client is not cut off mid-send.
      if (!expect && !relay(client, -1, length, std::nullopt, nullptr, moved)) break;
      WriteAll(client_fd, InjectedResponse(*fault, expect));
      UpdateLog(index, moved, fault->status);
      if (expect) break;
      continue;
    }
    if (expect) WriteAll(client_fd, "HTTP/1.1 100 Continue\r\n\r\n");
    if (fault && fault->kind == FaultKind::kStall && fault->after_bytes == 0) {
      relay(client, -1, length, std::nullopt, nullptr, moved);
      UpdateLog(index, moved, 0);
      Pause(fault->stall);
      break;
    }
    if (upstream_fd < 0) {
      upstream_fd = ConnectUpstream();
      if (upstream_fd < 0) {
        WriteAll(client_fd, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        UpdateLog(index, 0, 502);
        break;
      }
      upstream.emplace(upstream_fd);
    }
    WriteAll(upstream_fd, request.Serialize());
    if (fault && fault->kind == FaultKind::kResetRequest) {
      relay(client, upstream_fd, length, fault->after_bytes, nullptr, moved);
      UpdateLog(index, moved, 0);
      close_fd(upstream_fd, true);
      close_fd(client_fd, true);
      return;
    }
    std::function<void(std::string&, uint64_t)> edit_request;
    if (fault && fault->kind == FaultKind::kCorruptRequestBody) {
      edit_request = flip_at(fault->after_bytes);
    }
    if (!relay(client, upstream_fd, length, std::nullopt, edit_request, moved)) {
      UpdateLog(index, moved, 0);
      break;
    }
    std::optional<std::string> response_text = upstream->ReadUntil("\r\n\r\n");
    if (!response_text.has_value()) {
      UpdateLog(index, moved, 0);
      break;
    }
    Head response = Head::Parse(*response_text);
    std::vector<std::string> status_parts = absl::StrSplit(response.first_line, ' ');
    int status = 0;
    if (status_parts.size() < 2 || !absl::SimpleAtoi(status_parts[1], &status)) break;
    UpdateLog(index, moved, status);
    if (fault && fault->kind == FaultKind::kWrongDigestHeader) {
      response.Set("Docker-Content-Digest", kWrongDigest);
    }
    bool no_body = method == "HEAD" || status == 204 || status == 304 || status < 200;
    bool until_close = !no_body && !response.Chunked() && !response.ContentLength().has_value();
    bool cut = fault && (fault->kind == FaultKind::kResetResponse ||
                         fault->kind == FaultKind::kStall);
    if (cut && fault->after_bytes == 0) {
      UpdateLog(index, moved, 0);
      close_fd(upstream_fd, true);
      close_fd(client_fd, true);
      return;
    }
    WriteAll(client_fd, response.Serialize());
    if (no_body) {
      // nothing follows the head
    } else if (response.Chunked()) {
      bool ok = true;
      while (ok) {
        std::optional<std::string> size_line = upstream->ReadUntil("\r\n");
        uint64_t size = 0;
        if (!size_line.has_value() ||
            !absl::SimpleHexAtoi(size_line->substr(0, size_line->find(';')), &size)) {
          ok = false;
          break;
        }
        WriteAll(client_fd, *size_line + "\r\n");
        if (size == 0) {
          while (std::optional<std::string> trailer = upstream->ReadUntil("\r\n")) {
            WriteAll(client_fd, *trailer + "\r\n");
            if (trailer->empty()) break;
          }
          break;
        }
        ok = relay(*upstream, client_fd, size + 2, std::nullopt, nullptr, moved);
      }
      if (!ok) break;
    } else {
      uint64_t body = until_close ? UINT64_MAX : *response.ContentLength();
      std::optional<uint64_t> stop_at;
      std::function<void(std::string&, uint64_t)> edit_response;
      if (cut) stop_at = fault->after_bytes;
      if (fault && fault->kind == FaultKind::kCorruptResponseBody) {
        edit_response = flip_at(fault->after_bytes);
      }
      bool complete = relay(*upstream, client_fd, body, stop_at, edit_response, moved);
      if (cut) {
        if (fault->kind == FaultKind::kStall) Pause(fault->stall);
        close_fd(upstream_fd, true);
        close_fd(client_fd, true);
        return;
      }
      if (!complete || until_close) break;
    }
    if (SameName(response.Get("Connection").value_or(""), "close")) {
      close_fd(upstream_fd, false);
      upstream.reset();
    }
    if (SameName(request.Get("Connection").value_or(""), "close")) break;
  }
  close_fd(upstream_fd, false);
  close_fd(client_fd, false);
}

}  // namespace trainpkg::registry::testing
