// How the replicas of a Slurm job learn each other's addresses. Node names
// need not resolve and several nodes may share an address (one host running
// several slurmd), so each replica picks a free port on its own node,
// publishes "host:port" in <job dir>/slurm/peers/<replica> on the shared
// filesystem and waits until every replica of the job has done so.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_PEER_RENDEZVOUS_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_PEER_RENDEZVOUS_H_

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trainpkg::sdk::slurm::internal {

// The IPv4 address of this node on the route to `peer_ip` (e.g. srun's
// SLURM_LAUNCH_NODE_IPADDR): a UDP socket is connected there (nothing is
// sent) and its local address read. InvalidArgument for a malformed IP.
absl::StatusOr<std::string> NodeAddressToward(std::string_view peer_ip);

// A TCP port that is free on `ip` now (bound to port 0, then closed).
absl::StatusOr<int> FreePortOn(std::string_view ip);

// Writes `address` as `replica`'s entry, atomically.
absl::Status PublishPeer(const std::filesystem::path& peers_dir, std::string_view replica,
                         std::string_view address);

// Waits until every one of `replicas` has an entry and returns replica ->
// address. DeadlineExceeded naming the replicas still missing after
// `timeout`.
absl::StatusOr<std::map<std::string, std::string>> WaitForPeers(
    const std::filesystem::path& peers_dir, const std::vector<std::string>& replicas,
    absl::Duration timeout);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_PEER_RENDEZVOUS_H_
