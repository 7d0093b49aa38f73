#include "sdk/serve/request_guard.h"

#include <openssl/crypto.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "fmt/format.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

constexpr int kUnsupportedMediaType = 415;
constexpr int kPayloadTooLarge = 413;
constexpr int kLengthRequired = 411;

RestReply RefuseRequest(const absl::Status& status, int http_status = 0) {
  nlohmann::json body = vertex::ErrorJson(status);
  if (http_status == 0) http_status = vertex::HttpStatusForCode(status.code());
  body["error"]["code"] = http_status;
  return RestReply{http_status, std::move(body)};
}

// The host as a Host header writes it: IPv6 addresses in brackets.
std::string HostName(std::string_view host) {
  return host.find(':') != std::string_view::npos ? fmt::format("[{}]", host) : std::string(host);
}

// Quotes a header value for a message, cut at 100 bytes with control bytes
// escaped, so a hostile value neither floods nor garbles the reply.
std::string Quote(std::string_view value) {
  std::string cut(value.substr(0, 100));
  std::string quoted = "\"" + absl::CHexEscape(cut) + "\"";
  return value.size() > cut.size() ? quoted + "..." : quoted;
}

bool SameSecret(std::string_view given, std::string_view secret) {
  // Constant time: how long the comparison takes says nothing about how much
  // of a guessed secret was right.
  return given.size() == secret.size() &&
         CRYPTO_memcmp(given.data(), secret.data(), secret.size()) == 0;
}

// The value of cookie `name` in a Cookie header ("a=1; b=2"); nullopt when absent.
std::optional<std::string_view> CookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    size_t end = header.find(';');
    std::string_view pair = header.substr(0, end);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    while (!pair.empty() && pair.back() == ' ') pair.remove_suffix(1);
    if (size_t eq = pair.find('='); eq != std::string_view::npos && pair.substr(0, eq) == name) {
      return pair.substr(eq + 1);
    }
    if (end == std::string_view::npos) break;
    header.remove_prefix(end + 1);
  }
  return std::nullopt;
}

}  // namespace

bool IsDashboardPath(std::string_view path) {
  return path == "/" || path == "/ui" || path.starts_with("/ui/");
}

RequestGuard::RequestGuard(RequestGuardOptions options) : options_(std::move(options)) {
  std::vector<std::string> hosts = {absl::AsciiStrToLower(options_.host)};
  if (hosts[0] == "127.0.0.1" || hosts[0] == "localhost" || hosts[0] == "::1") {
    hosts = {"127.0.0.1", "localhost", "::1"};
  }
  for (const std::string& host : hosts) {
    hosts_.push_back(fmt::format("{}:{}", HostName(host), options_.port));
    // The default port may be left out.
    if (options_.port == 80) hosts_.push_back(HostName(host));
  }
}

std::optional<RestReply> RequestGuard::Check(const HeaderValues& headers,
                                             const RequestTarget& target) const {
  for (const char* name : {"Host", "Origin", "Authorization", "Cookie", "Sec-Fetch-Site",
                           "Content-Encoding", "Content-Length", "Content-Type"}) {
    // Sent twice, a header could be read one way here and another way by
    // whatever else reads the request: refused rather than guessed.
    if (headers(name).size() > 1) {
      return RefuseRequest(absl::InvalidArgumentError(
          fmt::format("the request has more than one {} header; send it once", name)));
    }
  }
  if (std::optional<RestReply> refused = CheckHostAndOrigin(headers)) return refused;
  if (std::optional<RestReply> refused = CheckToken(headers, target)) return refused;
  return CheckBody(headers);
}

std::optional<RestReply> RequestGuard::CheckPageToken(const HeaderValues& headers,
                                                      std::string_view token) const {
  if (std::optional<RestReply> refused = CheckHostAndOrigin(headers)) return refused;
  if (options_.page_secret.empty() || !SameSecret(token, options_.token)) {
    return RefuseRequest(absl::UnauthenticatedError(
        "the token in the URL is not this server's (it changes each time serve starts): open the "
        "dashboard URL trainpkg serve printed at start"));
  }
  return std::nullopt;
}

std::string RequestGuard::CookieName() const {
  return fmt::format("trainpkg-serve-{}", options_.port);
}

std::string RequestGuard::PageCookie() const {
  TP_CHECK(!options_.page_secret.empty(), "RequestGuard::PageCookie without a page secret");
  return fmt::format("{}={}; HttpOnly; SameSite=Strict; Path=/", CookieName(),
                     options_.page_secret);
}

std::optional<RestReply> RequestGuard::CheckPageCookie(const HeaderValues& headers,
                                                       const RequestTarget& target,
                                                       std::string_view cookie) const {
  if (!SameSecret(cookie, options_.page_secret)) {
    return RefuseRequest(absl::UnauthenticatedError(
        "the dashboard's cookie is not this server's (serve restarted?): open the dashboard URL "
        "trainpkg serve printed at start"));
  }
  // SameSite=Strict keeps the cookie from other sites, but every port of
  // this host is the same site: a page another local server serves would
  // still send it. Browsers say where a request comes from.
  const std::vector<std::string> site = headers("Sec-Fetch-Site");
  if (!site.empty() && site[0] != "same-origin" && site[0] != "none") {
    return RefuseRequest(absl::PermissionDeniedError(fmt::format(
        "Sec-Fetch-Site {}: the dashboard answers only its own pages", Quote(site[0]))));
  }
  // What changes something (cancel) needs the Origin browsers always send
  // with it; CheckHostAndOrigin has checked that it is this server.
  if (target.method != "GET" && target.method != "HEAD" && headers("Origin").empty()) {
    return RefuseRequest(absl::PermissionDeniedError(fmt::format(
        "{} {} with the dashboard's cookie needs an Origin header of this server", target.method,
        Quote(target.path))));
  }
  return std::nullopt;
}

std::optional<RestReply> RequestGuard::CheckHostAndOrigin(const HeaderValues& headers) const {
  const std::vector<std::string> host = headers("Host");
  if (host.empty() ||
      std::find(hosts_.begin(), hosts_.end(), absl::AsciiStrToLower(host[0])) == hosts_.end()) {
    return RefuseRequest(absl::PermissionDeniedError(fmt::format(
        "Host {} is not this server's address (expected {}); requests for another name are "
        "refused so that a web page cannot reach this service through DNS rebinding",
        host.empty() ? "(missing)" : Quote(host[0]), absl::StrJoin(hosts_, " or "))));
  }
  const std::vector<std::string> origin = headers("Origin");
  if (!origin.empty()) {
    const std::string value = absl::AsciiStrToLower(origin[0]);
    const bool own = value.starts_with("http://") &&
                     std::find(hosts_.begin(), hosts_.end(), value.substr(7)) != hosts_.end();
    if (!own) {
      return RefuseRequest(absl::PermissionDeniedError(fmt::format(
          "Origin {} is not this server (http://{}); requests that web pages of other origins "
          "make are refused",
          Quote(origin[0]), hosts_[0])));
    }
  }
  return std::nullopt;
}

std::optional<RestReply> RequestGuard::CheckToken(const HeaderValues& headers,
                                                  const RequestTarget& target) const {
  const std::vector<std::string> authorization = headers("Authorization");
  if (authorization.empty() && !options_.page_secret.empty() && IsDashboardPath(target.path)) {
    const std::vector<std::string> cookies = headers("Cookie");
    std::optional<std::string_view> cookie =
        cookies.empty() ? std::nullopt : CookieValue(cookies[0], CookieName());
    if (cookie.has_value()) return CheckPageCookie(headers, target, *cookie);
  }
  const std::string how = fmt::format(
      "every request needs the header \"Authorization: Bearer <token>\" with the token trainpkg "
      "serve printed at start{}",
      options_.token_hint.empty() ? "" : "; " + options_.token_hint);
  if (authorization.empty()) {
    if (!options_.page_secret.empty() && IsDashboardPath(target.path)) {
      return RefuseRequest(absl::UnauthenticatedError(
          "not signed in to the dashboard: open the URL trainpkg serve printed at start "
          "(http://HOST:PORT/ui/?token=...), or send \"Authorization: Bearer <token>\""));
    }
    return RefuseRequest(absl::UnauthenticatedError(fmt::format("no Authorization header: {}", how)));
  }
  std::string_view value = authorization[0];
  constexpr std::string_view kBearer = "bearer ";
  if (value.size() < kBearer.size() ||
      !absl::EqualsIgnoreCase(std::string(value.substr(0, kBearer.size())), std::string(kBearer))) {
    return RefuseRequest(absl::UnauthenticatedError(
        fmt::format("the Authorization header is not a bearer token: {}", how)));
  }
  const std::string given(absl::StripAsciiWhitespace(std::string(value.substr(kBearer.size()))));
  if (!SameSecret(given, options_.token)) {
    return RefuseRequest(absl::UnauthenticatedError(
        fmt::format("the bearer token is not this server's (it changes each time serve starts): "
                    "{}",
                    how)));
  }
  return std::nullopt;
}

std::optional<RestReply> RequestGuard::CheckBody(const HeaderValues& headers) const {
  const std::vector<std::string> encoding = headers("Content-Encoding");
  // Nothing is inflated: a compressed body could grow far beyond the body
  // limit (300 KB of gzip once took 880 MB, docs/adr/2026-11-27-serve-access-control.md).
  if (!encoding.empty() &&
      !absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(encoding[0]), "identity")) {
    return RefuseRequest(absl::InvalidArgumentError(fmt::format(
                      "Content-Encoding {} is not accepted: send the request body uncompressed",
                      Quote(encoding[0]))),
                  kUnsupportedMediaType);
  }
  // cpp-httplib does not bound chunked bodies: a body must state its length.
  if (!headers("Transfer-Encoding").empty()) {
    return RefuseRequest(absl::InvalidArgumentError(
                      "Transfer-Encoding is not accepted: send the body with a Content-Length"),
                  kLengthRequired);
  }
  bool has_body = false;
  const std::vector<std::string> length = headers("Content-Length");
  if (!length.empty()) {
    uint64_t bytes = 0;
    if (!absl::SimpleAtoi(length[0], &bytes)) {
      return RefuseRequest(absl::InvalidArgumentError(
          fmt::format("Content-Length {} is not a number of bytes", Quote(length[0]))));
    }
    if (bytes > options_.max_body_bytes) {
      return RefuseRequest(absl::InvalidArgumentError(fmt::format(
                        "the request body has {} bytes; this service accepts at most {} ({} MiB)",
                        bytes, options_.max_body_bytes, options_.max_body_bytes >> 20)),
                    kPayloadTooLarge);
    }
    has_body = bytes > 0;
  }
  if (!has_body) return std::nullopt;
  const std::vector<std::string> type = headers("Content-Type");
  std::string_view media =
      type.empty() ? std::string_view() : std::string_view(type[0]).substr(0, type[0].find(';'));
  if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(std::string(media)), "application/json")) {
    return RefuseRequest(absl::InvalidArgumentError(
                      fmt::format("Content-Type {} is not accepted: request bodies must be "
                                  "\"application/json\" (a charset parameter may follow)",
                                  type.empty() ? "(missing)" : Quote(type[0]))),
                  kUnsupportedMediaType);
  }
  return std::nullopt;
}

}  // namespace trainpkg::sdk::serve
