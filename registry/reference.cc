#include "registry/reference.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::registry {
namespace {

constexpr size_t kMaxNameLength = 255;  // registry + "/" + path
constexpr size_t kMaxTagLength = 128;
constexpr std::string_view kOfficialPrefix = "library/";
constexpr std::string_view kLegacyHubDomain = "index.docker.io";

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsLower(c) || IsDigit(c); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || IsUpper(c); }
bool IsWordChar(char c) { return IsAlnum(c) || c == '_'; }

absl::Status Invalid(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("invalid reference \"{}\": {}", text, why));
}

// path-component := [a-z0-9]+ (separator [a-z0-9]+)*, separator := [_.] | __ | -+
bool IsValidPathComponent(std::string_view c) {
  size_t i = 0;
  auto run = [&] {
    size_t start = i;
    while (i < c.size() && IsLowerAlnum(c[i])) ++i;
    return i > start;
  };
  if (!run()) return false;
  while (i < c.size()) {
    if (c[i] == '.') {
      ++i;
    } else if (c[i] == '_') {
      i += (i + 1 < c.size() && c[i + 1] == '_') ? 2 : 1;
    } else if (c[i] == '-') {
      while (i < c.size() && c[i] == '-') ++i;
    } else {
      return false;
    }
    if (!run()) return false;
  }
  return true;
}

// domain-component := [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]
bool IsValidDomainComponent(std::string_view c) {
  if (c.empty() || !IsAlnum(c.front()) || !IsAlnum(c.back())) return false;
  return std::all_of(c.begin(), c.end(), [](char ch) { return IsAlnum(ch) || ch == '-'; });
}

bool IsValidIpv6Literal(std::string_view host) {
  if (host.size() < 3 || host.front() != '[' || host.back() != ']') return false;
  std::string_view inner = host.substr(1, host.size() - 2);
  return std::all_of(inner.begin(), inner.end(), [](char ch) {
    return IsDigit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F') || ch == ':' ||
           ch == '.';
  });
}

absl::Status ValidateDomain(std::string_view text, std::string_view domain) {
  std::string_view host = domain;
  size_t port_colon = domain.rfind(':');
  if (port_colon != std::string_view::npos &&
      domain.find(']', port_colon) == std::string_view::npos) {
    host = domain.substr(0, port_colon);
    std::string_view port = domain.substr(port_colon + 1);
    if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), IsDigit)) {
      return Invalid(
          text, fmt::format("port \"{}\" of registry \"{}\" must be 1 to 5 digits", port, domain));
    }
  }
  if (!host.empty() && host.front() == '[') {
    if (IsValidIpv6Literal(host)) return absl::OkStatus();
    return Invalid(text, fmt::format("registry \"{}\" is not a valid [IPv6] address", domain));
  }
  size_t start = 0;
  while (true) {
    size_t dot = host.find('.', start);
    std::string_view component =
        host.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!IsValidDomainComponent(component)) {
      return Invalid(text, fmt::format("registry host \"{}\" is invalid: dot-separated components "
                                       "of letters, digits and inner '-' expected",
                                       host));
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return absl::OkStatus();
}

absl::Status ValidatePath(std::string_view text, std::string_view path) {
  if (std::any_of(path.begin(), path.end(), IsUpper)) {
    return Invalid(text, fmt::format("repository name \"{}\" must be lowercase", path));
  }
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    std::string_view component =
        path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (!IsValidPathComponent(component)) {
      return Invalid(text, fmt::format("path component \"{}\" is invalid: use lowercase letters "
                                       "and digits separated by '.', '_', '__' or '-'",
                                       component));
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return absl::OkStatus();
}

absl::Status ValidateTag(std::string_view text, std::string_view tag) {
  bool ok = !tag.empty() && tag.size() <= kMaxTagLength && IsWordChar(tag.front()) &&
            std::all_of(tag.begin(), tag.end(),
                        [](char c) { return IsWordChar(c) || c == '.' || c == '-'; });
  if (ok) return absl::OkStatus();
  return Invalid(text, fmt::format("tag \"{}\" is invalid: 1 to 128 of [A-Za-z0-9_.-], not "
                                   "starting with '.' or '-'",
                                   tag));
}

// Splits a name into registry and path with docker's rule: the first
// component is a registry when it contains '.' or ':', is "localhost", or has
// an upper-case letter.
absl::StatusOr<Repository> ParseName(std::string_view text, std::string_view name) {
  if (name.empty()) return Invalid(text, "the repository name is empty");
  Repository repo;
  size_t slash = name.find('/');
  std::string_view first = name.substr(0, slash);
  bool has_domain = slash != std::string_view::npos &&
                    (first.find_first_of(".:") != std::string_view::npos || first == "localhost" ||
                     std::any_of(first.begin(), first.end(), IsUpper));
  std::string_view path = name;
  if (has_domain) {
    TP_RETURN_IF_ERROR(ValidateDomain(text, first));
    repo.registry = std::string(first);
    path = name.substr(slash + 1);
  } else {
    repo.registry = std::string(kDockerHubDomain);
    if (path.size() == 64 && std::all_of(path.begin(), path.end(), [](char c) {
          return IsDigit(c) || (c >= 'a' && c <= 'f');
        })) {
      return Invalid(text, "a 64-digit hex string is an image ID, not a repository name");
    }
  }
  // Docker's old name for the Hub; both name the same repositories, so they
  // compare and cache as one.
  if (repo.registry == kLegacyHubDomain) repo.registry = std::string(kDockerHubDomain);
  if (path.empty()) return Invalid(text, "the repository path after the registry is empty");
  TP_RETURN_IF_ERROR(ValidatePath(text, path));
  repo.path = std::string(path);
  if (repo.registry == kDockerHubDomain && path.find('/') == std::string_view::npos) {
    // Docker Hub keeps its official images under library/: "ubuntu" is
    // docker.io/library/ubuntu.
    repo.path = std::string(kOfficialPrefix) + repo.path;
  }
  size_t length = repo.registry.size() + 1 + repo.path.size();
  if (length > kMaxNameLength) {
    return Invalid(text, fmt::format("the name is {} characters long; at most {} are allowed",
                                     length, kMaxNameLength));
  }
  return repo;
}

}  // namespace

std::string Reference::Identifier() const {
  if (!digest.empty()) return digest.ToString();
  if (!tag.empty()) return tag;
  return "latest";
}

std::string Reference::String() const {
  std::string out = repository.Name();
  if (!tag.empty()) out += ":" + tag;
  if (!digest.empty()) out += "@" + digest.ToString();
  return out;
}

absl::StatusOr<Reference> ParseReference(std::string_view text) {
  if (text.empty()) return absl::InvalidArgumentError("invalid reference: it is empty");
  Reference ref;
  std::string_view rest = text;
  size_t at = rest.find('@');
  if (at != std::string_view::npos) {
    absl::StatusOr<oci::Digest> digest = oci::Digest::Parse(rest.substr(at + 1));
    if (!digest.ok()) return Invalid(text, std::string(digest.status().message()));
    ref.digest = *std::move(digest);
    rest = rest.substr(0, at);
  }
  // The tag's ':' is the last one after the last '/': an earlier ':' is a
  // registry's port ("localhost:5000/app").
  size_t colon = rest.rfind(':');
  size_t slash = rest.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    std::string_view tag = rest.substr(colon + 1);
    TP_RETURN_IF_ERROR(ValidateTag(text, tag));
    ref.tag = std::string(tag);
    rest = rest.substr(0, colon);
  }
  TP_ASSIGN_OR_RETURN(ref.repository, ParseName(text, rest));
  return ref;
}

absl::StatusOr<Repository> ParseRepository(std::string_view text) {
  TP_ASSIGN_OR_RETURN(Reference ref, ParseReference(text));
  if (!ref.tag.empty() || !ref.digest.empty()) {
    return Invalid(text, "a repository takes no tag or digest");
  }
  return ref.repository;
}

std::string RegistryApiHost(std::string_view registry) {
  // docker.io names the Hub in references; its registry API is served from
  // another host.
  if (registry == kDockerHubDomain) return std::string(kDockerHubApiHost);
  return std::string(registry);
}

bool IsLoopbackRegistry(std::string_view registry) {
  std::string_view host = registry;
  if (!host.empty() && host.front() == '[') {
    return host.substr(0, host.find(']') + 1) == "[::1]";
  }
  host = host.substr(0, host.find(':'));
  if (host == "localhost" || (host.size() > 10 && host.ends_with(".localhost"))) return true;
  return host.starts_with("127.") && std::count(host.begin(), host.end(), '.') == 3 &&
         std::all_of(host.begin(), host.end(), [](char c) { return IsDigit(c) || c == '.'; });
}

}  // namespace trainpkg::registry
