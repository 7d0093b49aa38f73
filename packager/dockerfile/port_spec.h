// EXPOSE port specifications: PORT, PORT/PROTO, FIRST-LAST[/PROTO].
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_PORT_SPEC_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_PORT_SPEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::dockerfile {

struct PortSpec {
  int first = 0;
  int last = 0;          // == first for a single port
  std::string protocol;  // "tcp" (default), "udp" or "sctp", lowercased
  bool operator==(const PortSpec&) const = default;
};

// InvalidArgument (message without location) when ports are not 1..65535,
// the range is reversed, or the protocol is not tcp/udp/sctp.
absl::StatusOr<PortSpec> ParsePortSpec(std::string_view text);

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_PORT_SPEC_H_
