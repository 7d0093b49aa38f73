#include "http/url.h"

#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace trainpkg::http {
namespace {

// Index just after "scheme://", or npos.
size_t AuthorityStart(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::string_view::npos;
  return sep + 3;
}

}  // namespace

std::string UrlForDisplay(std::string_view url) {
  return std::string(url.substr(0, url.find_first_of("?#")));
}

absl::StatusOr<std::string> UrlAuthority(std::string_view url) {
  size_t start = AuthorityStart(url);
  if (start == std::string_view::npos) {
    return absl::InvalidArgumentError(fmt::format("\"{}\" is not an absolute URL", url));
  }
  size_t end = url.find_first_of("/?#", start);
  std::string_view authority = url.substr(start, end == std::string_view::npos ? end : end - start);
  // Userinfo ("user:pass@") is not part of the host.
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority = authority.substr(at + 1);
  if (authority.empty()) {
    return absl::InvalidArgumentError(fmt::format("URL \"{}\" has no host", UrlForDisplay(url)));
  }
  return std::string(authority);
}

absl::StatusOr<std::string> UrlOrigin(std::string_view url) {
  absl::StatusOr<std::string> authority = UrlAuthority(url);
  if (!authority.ok()) return authority.status();
  std::string scheme(url.substr(0, url.find("://")));
  absl::AsciiStrToLower(&scheme);
  std::string host = *authority;
  absl::AsciiStrToLower(&host);
  std::string port;
  size_t colon = host.rfind(':');
  size_t bracket = host.rfind(']');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    port = host.substr(colon + 1);
    host.resize(colon);
  }
  // The default port made explicit, so "https://h" and "https://h:443"
  // compare as the one origin they are.
  if (port.empty()) port = scheme == "https" ? "443" : scheme == "http" ? "80" : "";
  return fmt::format("{}://{}:{}", scheme, host, port);
}

std::string ResolveUrl(std::string_view base, std::string_view location) {
  // RFC 3986 reference resolution for the forms registries send in Location
  // and Link: absolute, "//host/...", "/path", "?query" and a relative path;
  // no dot-segment removal.
  if (AuthorityStart(location) != std::string_view::npos) return std::string(location);
  size_t start = AuthorityStart(base);
  size_t path_start = base.find_first_of("/?#", start);
  std::string_view origin = base.substr(0, path_start);
  if (location.starts_with("//"))
    return std::string(base.substr(0, start - 2)) + std::string(location);
  if (location.starts_with("/")) return std::string(origin) + std::string(location);
  std::string_view base_path = path_start == std::string_view::npos ? "/" : base.substr(path_start);
  base_path = base_path.substr(0, base_path.find_first_of("?#"));
  base_path = base_path.substr(0, base_path.rfind('/') + 1);
  if (location.starts_with("?")) {
    std::string_view full = path_start == std::string_view::npos ? "/" : base.substr(path_start);
    return std::string(origin) + std::string(full.substr(0, full.find_first_of("?#"))) +
           std::string(location);
  }
  return std::string(origin) + std::string(base_path) + std::string(location);
}

std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace trainpkg::http
