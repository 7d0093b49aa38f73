#include "packager/run/hosts_file.h"

#include <arpa/inet.h>

#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

constexpr size_t kMaxNameLength = 253;

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool ValidIp(const std::string& ip) {
  unsigned char address[16];
  return ::inet_pton(AF_INET, ip.c_str(), address) == 1 ||
         ::inet_pton(AF_INET6, ip.c_str(), address) == 1;
}

}  // namespace

absl::StatusOr<HostEntry> ParseHostEntry(std::string_view value, std::string_view flag) {
  const size_t colon = value.find(':');
  auto invalid = [&](std::string_view why) {
    return absl::InvalidArgumentError(fmt::format(
        "{} \"{}\": {}; expected NAME:IP, e.g. db:10.0.0.5 or db:[::1]", flag, value, why));
  };
  if (colon == std::string_view::npos) return invalid("no ':' between the name and the address");
  HostEntry entry{std::string(value.substr(0, colon)), std::string(value.substr(colon + 1))};
  if (!ValidName(entry.name)) {
    return invalid(fmt::format(
        "\"{}\" is not a host name (letters, digits, '.', '-' and '_', 1 to {} characters)",
        entry.name, kMaxNameLength));
  }
  if (entry.ip.size() > 2 && entry.ip.front() == '[' && entry.ip.back() == ']') {
    entry.ip = entry.ip.substr(1, entry.ip.size() - 2);
  }
  if (!ValidIp(entry.ip)) {
    return invalid(fmt::format("\"{}\" is not an IPv4 or IPv6 address", entry.ip));
  }
  return entry;
}

std::string HostsFile(std::span<const HostEntry> entries) {
  std::string text = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
  for (const HostEntry& entry : entries) text += fmt::format("{}\t{}\n", entry.ip, entry.name);
  return text;
}

}  // namespace trainpkg::packager::run
