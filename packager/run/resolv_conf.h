// The /etc/resolv.conf a container sees, made from the host's the way
// Docker makes it: the host's search, domain, options and other lines are
// kept (comments dropped), and its nameserver lines are either replaced or
// filtered, because a container in a network namespace of its own cannot
// reach the host's loopback resolver (systemd-resolved's 127.0.0.53 and
// the like).
#ifndef TRAINPKG_PACKAGER_RUN_RESOLV_CONF_H_
#define TRAINPKG_PACKAGER_RUN_RESOLV_CONF_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::run {

// Where the host's resolver configuration lives.
inline constexpr char kHostResolvConf[] = "/etc/resolv.conf";

// The host's resolver configuration: the contents of `path` ("" when it does
// not exist, as on a host without DNS). Errors: PermissionDenied and the
// like naming the path; InvalidArgument when it is larger than 64 KiB (no
// resolver reads that much).
absl::StatusOr<std::string> ReadHostResolvConf(const std::filesystem::path& path);

// `host` with every nameserver line replaced by one "nameserver
// `nameserver`" line, first: for a namespace whose only resolver is a
// forwarder (slirp4netns's, slirp_network.h).
std::string ResolvConfWithNameserver(std::string_view host, std::string_view nameserver);

// `host` without its loopback nameservers (127.0.0.0/8, ::1), as Docker
// writes it for a container on a network of its own. With none left the
// file names no nameserver (and resolvers try 127.0.0.1, the namespace's
// own loopback).
std::string ResolvConfWithoutLoopback(std::string_view host);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_RESOLV_CONF_H_
