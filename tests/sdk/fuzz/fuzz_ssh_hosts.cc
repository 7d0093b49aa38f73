// Fuzz target: any bytes as the SSH backend's host list (`--hosts`, the
// horovodrun -H form) and as an Open MPI hostfile (`--hostfile`), then the
// placement of a few replicas over what parsed. Must never crash, hang or
// trip a sanitizer; errors are fine. What parses must be safe to hand to
// ssh: every name passes CheckHostName (never an option, never a shell
// metacharacter), slots 1..1024, no host twice, and placement stays inside
// the list and each host's slots.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sdk/ssh/host_list.h"

namespace {

using trainpkg::sdk::ssh::SshHost;

void CheckHosts(const std::vector<SshHost>& hosts) {
  std::set<std::string> seen;
  for (const SshHost& host : hosts) {
    if (!trainpkg::sdk::ssh::CheckHostName(host.name).ok()) std::abort();
    if (host.slots < 1 || host.slots > 1024) std::abort();
    if (!seen.insert(host.name).second) std::abort();
  }
  for (size_t replicas : {size_t{1}, size_t{3}, size_t{64}}) {
    absl::StatusOr<std::vector<size_t>> placed = trainpkg::sdk::ssh::PlaceReplicas(hosts, replicas);
    if (!placed.ok()) continue;
    if (placed->size() != replicas) std::abort();
    std::vector<int> used(hosts.size(), 0);
    for (size_t host : *placed) {
      if (host >= hosts.size()) std::abort();
      if (++used[host] > hosts[host].slots) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto hosts = trainpkg::sdk::ssh::ParseHostList(text); hosts.ok()) CheckHosts(*hosts);
  if (auto hosts = trainpkg::sdk::ssh::ParseHostfile(text, "hosts.txt"); hosts.ok()) {
    CheckHosts(*hosts);
  }
  return 0;
}
