// A network namespace with outbound access through slirp4netns (user-mode
// TCP/IP: the container's connections become connections of the
// slirp4netns process on the host), for Dockerfile RUN: like `docker
// build`, a RUN reaches the network (package mirrors, DNS), but from a
// namespace of its own, and with --disable-host-loopback so 10.0.2.2 (the
// host) does not lead to services bound to the host's 127.0.0.1.
//
// Inside: tap0 = 10.0.2.100/24, default route via 10.0.2.2, DNS forwarder
// at kDnsServer (answers with the host's resolvers), lo up. A RUN that wants
// names resolved mounts a resolv.conf naming kDnsServer.
//
//   TP_ASSIGN_OR_RETURN(SlirpNetwork network, SlirpNetwork::Start(name, "slirp4netns", log));
//   bundle.network_namespace = network.path();
//
// slirp4netns exits when the write end of its --exit-fd pipe closes: when
// this object goes, or when this process dies. (Not --enable-sandbox: its
// unmount of the old root reaches the host's shared /run and takes the
// namespace's bind mount with it.) Move-only.
#ifndef TRAINPKG_PACKAGER_RUN_SLIRP_NETWORK_H_
#define TRAINPKG_PACKAGER_RUN_SLIRP_NETWORK_H_

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "packager/run/network_namespace.h"

namespace trainpkg::packager::run {

class SlirpNetwork {
 public:
  static constexpr char kDnsServer[] = "10.0.2.3";

  // Creates the namespace /run/netns/<name> and starts `slirp4netns` for it,
  // its output going to `log` (created). Returns once the interface is
  // configured. Errors: NotFound when slirp4netns cannot be executed
  // (install it: scripts/install-deps.sh); Unavailable with the tail of
  // `log` when it exits before the network is ready; those of
  // NetworkNamespace::Create.
  static absl::StatusOr<SlirpNetwork> Start(const std::string& name, const std::string& slirp4netns,
                                            const std::filesystem::path& log);

  SlirpNetwork(SlirpNetwork&& other) noexcept
      : netns_(std::move(other.netns_)), exit_fd_(other.exit_fd_), pid_(other.pid_) {
    other.exit_fd_ = -1;
    other.pid_ = -1;
  }
  SlirpNetwork& operator=(SlirpNetwork&&) = delete;
  SlirpNetwork(const SlirpNetwork&) = delete;
  SlirpNetwork& operator=(const SlirpNetwork&) = delete;
  // Stops slirp4netns and waits for it; then the namespace goes.
  ~SlirpNetwork();

  const std::filesystem::path& path() const { return netns_.path(); }

 private:
  SlirpNetwork(NetworkNamespace netns, int exit_fd, pid_t pid)
      : netns_(std::move(netns)), exit_fd_(exit_fd), pid_(pid) {}

  NetworkNamespace netns_;
  int exit_fd_;  // the write end of slirp4netns's --exit-fd pipe
  pid_t pid_;
};

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_SLIRP_NETWORK_H_
