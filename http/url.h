// Small URL helpers for the HTTP clients (http/, registry/).
#ifndef TRAINPKG_HTTP_URL_H_
#define TRAINPKG_HTTP_URL_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::http {

// `url` without its query and fragment: what logs and errors show, since
// queries can carry signed state (upload sessions, pre-signed storage URLs).
std::string UrlForDisplay(std::string_view url);

// "host[:port]" of an absolute URL, the port only when the URL names one
// ("127.0.0.1:5000", "[::1]:5000", "gcr.io"). InvalidArgument when `url`
// has no scheme://authority.
absl::StatusOr<std::string> UrlAuthority(std::string_view url);

// "scheme://host:port" of an absolute URL, lower case, with the scheme's
// default port filled in (http 80, https 443): two URLs have the same
// origin (RFC 6454) exactly when these are equal. InvalidArgument when
// `url` has no scheme://authority.
absl::StatusOr<std::string> UrlOrigin(std::string_view url);

// Resolves `location` (absolute, "/path?q" or "path") against the absolute
// `base` URL (RFC 3986 §5.2 for the forms registries send).
std::string ResolveUrl(std::string_view base, std::string_view location);

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(std::string_view text);

}  // namespace trainpkg::http

#endif  // TRAINPKG_HTTP_URL_H_
