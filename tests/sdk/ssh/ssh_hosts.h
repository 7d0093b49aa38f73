// "Hosts" for the SSH backend's tests: network namespaces this process
// creates, each with a veth pair to a bridge on a private /24 it picks, and
// Debian's sshd (openssh-server) running in each (nsenter --net, so the
// hosts keep this machine's mounts, /sys/fs/cgroup included, as runc needs) with a
// throwaway host key and one authorized test key. An ssh_config file names
// them host1, host2, ... (HostName: their addresses), with the test key,
// the generated host keys as the only known hosts and StrictHostKeyChecking
// yes. The namespaces share this machine's filesystem, so every path is
// "shared by all hosts"; each host's logins get a $HOME of their own in the
// fixture's directory (sshd's SetEnv), so what a host caches stays apart. Stop() kills each sshd by
// pid and deletes the namespaces and the bridge it created, by name. Needs root.
#ifndef TRAINPKG_TESTS_SDK_SSH_SSH_HOSTS_H_
#define TRAINPKG_TESTS_SDK_SSH_SSH_HOSTS_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/subprocess.h"
#include "tests/test_util/file.h"

namespace trainpkg::sdk::testing {

struct SshHostsOptions {
  int hosts = 3;
  // Hosts (1-based) whose namespace runs no sshd: reachable on the network,
  // refusing ssh connections.
  std::vector<int> without_sshd;
};

class SshHosts {
 public:
  SshHosts() = default;
  ~SshHosts();  // Stop()
  SshHosts(const SshHosts&) = delete;
  SshHosts& operator=(const SshHosts&) = delete;

  // "" when this process can create them (root, ip, sshd, ssh, ssh-keygen);
  // else why not (the tests skip then).
  static std::string Unavailable();

  // Creates the namespaces and starts the sshds; waits (10 s at most) until
  // each accepts TCP connections.
  absl::Status Start(const SshHostsOptions& options = {});
  void Stop();

  // "host1", "host2", ... as the ssh_config names them.
  std::string name(int host) const { return "host" + std::to_string(host); }
  // Its address on the bridge, e.g. "10.201.37.2".
  const std::string& address(int host) const { return addresses_.at(host - 1); }
  // The namespace of host `host`, for `ip netns exec` / `nsenter --net`.
  const std::string& netns(int host) const { return netns_.at(host - 1); }
  // $HOME of the logins on host `host`.
  std::filesystem::path home(int host) const {
    return dir_.path() / ("host" + std::to_string(host)) / "home";
  }
  std::filesystem::path ssh_config() const { return dir_.path() / "ssh_config"; }
  const std::filesystem::path& dir() const { return dir_.path(); }
  // Runs `command` with sh on host `host` through ssh; exit code and output.
  struct Result {
    int code = -1;
    std::string out;
  };
  Result Ssh(int host, const std::string& command) const;
  // The pids of processes in host `host`'s namespace (besides its sshd).
  std::vector<int> ProcessesIn(int host) const;
  // The sshd logs, for failure messages.
  std::string Logs() const;

 private:
  ::trainpkg::testing::TempDir dir_;
  std::string bridge_;
  std::vector<std::string> netns_;
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<base::Child>> sshd_;
  std::vector<int> sshd_pids_;
};

}  // namespace trainpkg::sdk::testing

#endif  // TRAINPKG_TESTS_SDK_SSH_SSH_HOSTS_H_
