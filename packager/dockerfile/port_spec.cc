#include "packager/dockerfile/port_spec.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace trainpkg::packager::dockerfile {
namespace {

bool ParsePort(std::string_view s, int& port) {
  if (s.empty() || s.size() > 5) return false;
  port = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    port = port * 10 + (c - '0');
  }
  return port >= 1 && port <= 65535;
}

}  // namespace

absl::StatusOr<PortSpec> ParsePortSpec(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(fmt::format(
        "invalid port '{}': {}; valid: PORT, PORT/PROTO or FIRST-LAST/PROTO with ports 1-65535 "
        "and PROTO tcp, udp or sctp",
        text, why));
  };
  PortSpec spec;
  std::string_view ports = text;
  size_t slash = text.find('/');
  spec.protocol = "tcp";
  if (slash != std::string_view::npos) {
    ports = text.substr(0, slash);
    spec.protocol = absl::AsciiStrToLower(std::string(text.substr(slash + 1)));
    if (spec.protocol != "tcp" && spec.protocol != "udp" && spec.protocol != "sctp") {
      return bad("unknown protocol");
    }
  }
  size_t dash = ports.find('-');
  if (!ParsePort(ports.substr(0, dash), spec.first)) return bad("not a port number");
  spec.last = spec.first;
  if (dash != std::string_view::npos) {
    if (!ParsePort(ports.substr(dash + 1), spec.last)) return bad("not a port range");
    if (spec.last < spec.first) return bad("the range ends before it starts");
  }
  return spec;
}

}  // namespace trainpkg::packager::dockerfile
