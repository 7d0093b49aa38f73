// The minimal /etc a bundled binary needs, written into a staging directory
// that becomes the bundle's first layer: passwd and group (root and nobody/
// nogroup, uid/gid 65534), nsswitch.conf (files, then dns for hosts), hosts
// (localhost, IPv4 and IPv6), and with `ca_bundle` set, that file as
// /etc/ssl/certs/ca-certificates.crt (Debian's path, which OpenSSL and
// libcurl read). Also an empty /tmp (the layer gives it mode 1777).
#ifndef TRAINPKG_PACKAGER_BUNDLE_ETC_FILES_H_
#define TRAINPKG_PACKAGER_BUNDLE_ETC_FILES_H_

#include <filesystem>
#include <string>

#include "absl/status/status.h"

namespace trainpkg::packager::bundle {

inline constexpr char kCaBundlePath[] = "/etc/ssl/certs/ca-certificates.crt";

// Writes DIR/etc/... and DIR/tmp. `ca_bundle`: a host file, "" for none.
// Errors: the I/O error naming the path (NotFound for a missing ca_bundle).
absl::Status WriteEtcFiles(const std::filesystem::path& dir, const std::string& ca_bundle);

}  // namespace trainpkg::packager::bundle

#endif  // TRAINPKG_PACKAGER_BUNDLE_ETC_FILES_H_
