// The /etc/hosts a container sees: Docker's localhost lines followed by one
// line per entry, and the `--add-host NAME:IP` entries that feed it.
//
//   TP_ASSIGN_OR_RETURN(HostEntry db, ParseHostEntry("db:10.0.0.5", "--add-host"));
//   std::string hosts = HostsFile({{"buildkitsandbox", "127.0.0.1"}, db});
#ifndef TRAINPKG_PACKAGER_RUN_HOSTS_FILE_H_
#define TRAINPKG_PACKAGER_RUN_HOSTS_FILE_H_

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::run {

struct HostEntry {
  std::string name;  // a host name: [A-Za-z0-9._-], at most 253 characters
  std::string ip;    // an IPv4 or IPv6 address as written (no brackets)
  bool operator==(const HostEntry&) const = default;
};

// Parses `value` as NAME:IP (IPv6 may be bracketed: db:[::1]; the first ':'
// ends the name). InvalidArgument naming `flag` and `value` and the valid
// form when the name or the address is not valid.
absl::StatusOr<HostEntry> ParseHostEntry(std::string_view value, std::string_view flag);

// "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n", then
// "IP\tNAME\n" for each entry, in order.
std::string HostsFile(std::span<const HostEntry> entries);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_HOSTS_FILE_H_
