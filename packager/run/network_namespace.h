// A network namespace kept alive by a bind mount of its nsfs file at a path
// (like `ip netns add`, in /run/netns so `ip netns` sees it), for runc
// containers to join through the runtime spec's namespace `path`. It holds
// only a loopback interface, which is up: containers that join one
// namespace reach each other on 127.0.0.1 and nothing else.
//
//   TP_ASSIGN_OR_RETURN(NetworkNamespace netns, NetworkNamespace::Create("trainpkg-job-1"));
//   bundle.network_namespace = netns.path();
//
// The namespace is recorded in this process's HostResourceLedger, so it is
// removed when the process dies (host_resource_ledger.h). Needs
// CAP_SYS_ADMIN (root). Move-only.
#ifndef TRAINPKG_PACKAGER_RUN_NETWORK_NAMESPACE_H_
#define TRAINPKG_PACKAGER_RUN_NETWORK_NAMESPACE_H_

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "packager/run/host_resource_ledger.h"

namespace trainpkg::packager::run {

class NetworkNamespace {
 public:
  // The directory holding the namespaces' mount points.
  static constexpr char kDirectory[] = "/run/netns";

  // Creates /run/netns/<name> (name: [A-Za-z0-9._-], not starting with '.').
  // Errors: InvalidArgument for a bad name, AlreadyExists when the path is
  // taken, the errno of unshare(2) / mount(2) / the loopback ioctl otherwise
  // (PermissionDenied without root).
  static absl::StatusOr<NetworkNamespace> Create(const std::string& name);

  NetworkNamespace(NetworkNamespace&& other) noexcept
      : path_(std::move(other.path_)), entry_(std::move(other.entry_)) {
    other.path_.clear();
  }
  NetworkNamespace& operator=(NetworkNamespace&&) = delete;
  NetworkNamespace(const NetworkNamespace&) = delete;
  NetworkNamespace& operator=(const NetworkNamespace&) = delete;
  // Unmounts and removes the mount point; the namespace itself ends when
  // its last process leaves.
  ~NetworkNamespace();

  const std::filesystem::path& path() const { return path_; }

 private:
  NetworkNamespace(std::filesystem::path path, LedgerEntry entry)
      : path_(std::move(path)), entry_(std::move(entry)) {}

  std::filesystem::path path_;
  LedgerEntry entry_;
};

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_NETWORK_NAMESPACE_H_
