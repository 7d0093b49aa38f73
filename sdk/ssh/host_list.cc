#include "sdk/ssh/host_list.h"

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trainpkg::sdk::ssh {
namespace {

constexpr int kMaxSlots = 1024;

absl::StatusOr<int> ParseSlots(absl::string_view text, absl::string_view what) {
  int slots = 0;
  if (!absl::SimpleAtoi(text, &slots) || slots < 1 || slots > kMaxSlots) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": slots \"", text, "\" is not a number from 1 to ", kMaxSlots));
  }
  return slots;
}

// Adds `host` unless it is already there.
absl::Status AddHost(std::vector<SshHost>& hosts, SshHost host, absl::string_view what) {
  if (absl::Status status = CheckHostName(host.name); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", status.message()));
  }
  for (const SshHost& other : hosts) {
    if (other.name == host.name) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": host \"", host.name, "\" is listed twice; give it once with all its slots"));
    }
  }
  hosts.push_back(std::move(host));
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckHostName(absl::string_view name) {
  if (name.empty()) return absl::InvalidArgumentError("empty host name");
  if (name.front() == '-') {
    return absl::InvalidArgumentError(
        absl::StrCat("host \"", name, "\" starts with '-', which ssh would take for an option"));
  }
  for (char c : name) {
    // Names, addresses, ssh_config aliases and user@host; no shell or option syntax.
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
          c == '@' || c == '[' || c == ']' || c == ':' || c == '%')) {
      return absl::InvalidArgumentError(
          absl::StrCat("host \"", name, "\" has the character '", std::string(1, c),
                       "'; valid: letters, digits and . - _ @ (user@host), [ ] : % (IPv6)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SshHost>> ParseHostList(absl::string_view list) {
  std::vector<SshHost> hosts;
  for (absl::string_view entry : absl::StrSplit(list, ',')) {
    const std::string what = absl::StrCat("host list entry \"", entry, "\"");
    if (entry.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("host list \"", list, "\" has an empty entry; write host:slots,host:slots"));
    }
    SshHost host;
    if (size_t colon = entry.rfind(':');
        colon != absl::string_view::npos && !absl::EndsWith(entry, "]")) {
      absl::StatusOr<int> slots = ParseSlots(entry.substr(colon + 1), what);
      if (!slots.ok()) return slots.status();
      host.slots = *slots;
      entry = entry.substr(0, colon);
    }
    host.name = std::string(entry);
    if (absl::Status status = AddHost(hosts, std::move(host), what); !status.ok()) return status;
  }
  return hosts;
}

absl::StatusOr<std::vector<SshHost>> ParseHostfile(absl::string_view text, absl::string_view file) {
  std::vector<SshHost> hosts;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    const std::string what = absl::StrCat(file, ":", line_number);
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) line = line.substr(0, hash);
    std::vector<absl::string_view> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (words.empty()) continue;
    SshHost host{.name = std::string(words[0])};
    for (size_t i = 1; i < words.size(); ++i) {
      absl::string_view word = words[i];
      if (absl::ConsumePrefix(&word, "slots=")) {
        absl::StatusOr<int> slots = ParseSlots(word, what);
        if (!slots.ok()) return slots.status();
        host.slots = *slots;
      } else if (!absl::StartsWith(word, "max_slots=")) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": \"", word, "\" is not slots=N or max_slots=N (write: host slots=N)"));
      }
    }
    if (absl::Status status = AddHost(hosts, std::move(host), what); !status.ok()) return status;
  }
  if (hosts.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": no hosts (write one per line: host slots=N)"));
  }
  return hosts;
}

absl::StatusOr<std::vector<size_t>> PlaceReplicas(const std::vector<SshHost>& hosts,
                                                  size_t replicas) {
  if (hosts.empty()) {
    return absl::InvalidArgumentError(
        "no hosts to run the job on: give --hosts host:slots,... or --hostfile FILE");
  }
  std::vector<size_t> placement;
  size_t slots = 0;
  for (size_t h = 0; h < hosts.size(); ++h) {
    slots += static_cast<size_t>(hosts[h].slots);
    for (int s = 0; s < hosts[h].slots && placement.size() < replicas; ++s) placement.push_back(h);
  }
  if (placement.size() < replicas) {
    return absl::InvalidArgumentError(
        absl::StrCat("the job has ", replicas, " replicas but the hosts give ", slots,
                     " slots; add hosts or slots (host:slots) so that every replica has one"));
  }
  return placement;
}

}  // namespace trainpkg::sdk::ssh
