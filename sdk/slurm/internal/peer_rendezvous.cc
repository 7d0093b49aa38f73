#include "sdk/slurm/internal/peer_rendezvous.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/private_file.h"

namespace trainpkg::sdk::slurm::internal {
namespace {

absl::StatusOr<sockaddr_in> ParseIpv4(std::string_view ip, int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, std::string(ip).c_str(), &address.sin_addr) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", std::string(ip), "\" is not an IPv4 address like 10.0.0.5"));
  }
  return address;
}

// The local address and port a socket is bound to.
absl::StatusOr<sockaddr_in> LocalAddress(int fd) {
  sockaddr_in local{};
  socklen_t size = sizeof(local);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) != 0) {
    return base::ErrnoToStatus(errno, "getsockname");
  }
  return local;
}

class Socket {
 public:
  explicit Socket(int type) : fd_(::socket(AF_INET, type | SOCK_CLOEXEC, 0)) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

absl::StatusOr<std::string> NodeAddressToward(std::string_view peer_ip) {
  absl::StatusOr<sockaddr_in> peer = ParseIpv4(peer_ip, /*port=*/9);
  if (!peer.ok()) return peer.status();
  Socket socket(SOCK_DGRAM);
  if (socket.fd() < 0) return base::ErrnoToStatus(errno, "creating a UDP socket");
  // connect() on a UDP socket sends nothing: it only picks the route, and so
  // the local address that peer would reach us on (port 9 is never used).
  if (::connect(socket.fd(), reinterpret_cast<const sockaddr*>(&*peer), sizeof(*peer)) != 0) {
    return base::ErrnoToStatus(errno, absl::StrCat("finding the route to ", std::string(peer_ip)));
  }
  absl::StatusOr<sockaddr_in> local = LocalAddress(socket.fd());
  if (!local.ok()) return local.status();
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &local->sin_addr, text, sizeof(text));
  return std::string(text);
}

absl::StatusOr<int> FreePortOn(std::string_view ip) {
  absl::StatusOr<sockaddr_in> address = ParseIpv4(ip, /*port=*/0);
  if (!address.ok()) return address.status();
  Socket socket(SOCK_STREAM);
  if (socket.fd() < 0) return base::ErrnoToStatus(errno, "creating a TCP socket");
  if (::bind(socket.fd(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0) {
    return base::ErrnoToStatus(errno, absl::StrCat("binding ", std::string(ip), ":0"));
  }
  absl::StatusOr<sockaddr_in> local = LocalAddress(socket.fd());
  if (!local.ok()) return local.status();
  return static_cast<int>(ntohs(local->sin_port));
}

absl::Status PublishPeer(const std::filesystem::path& peers_dir, std::string_view replica,
                         std::string_view address) {
  // Atomic: a peer polling the directory never reads half an address.
  return base::WriteFileAtomicPrivate(peers_dir / replica, address);
}

absl::StatusOr<std::map<std::string, std::string>> WaitForPeers(
    const std::filesystem::path& peers_dir, const std::vector<std::string>& replicas,
    absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::map<std::string, std::string> peers;
  absl::Duration pause = absl::Milliseconds(1);
  for (;;) {
    std::vector<std::string> missing;
    for (const std::string& replica : replicas) {
      if (peers.contains(replica)) continue;
      absl::StatusOr<std::string> address = base::ReadFile(peers_dir / replica);
      if (address.ok() && !address->empty()) {
        peers.emplace(replica, *std::move(address));
      } else {
        missing.push_back(replica);
      }
    }
    if (missing.empty()) return peers;
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("no address from ", absl::StrJoin(missing, ", "), " after ",
                       absl::FormatDuration(timeout), " (in ", peers_dir.string(), ")"));
    }
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(pause));
    // Fast while the peers come up together, and gentle on a shared file
    // system once it waits longer.
    pause = std::min(pause * 2, absl::Milliseconds(20));
  }
}

}  // namespace trainpkg::sdk::slurm::internal
