#include "tests/sdk/ssh/ssh_hosts.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "base/file_util.h"
#include "tests/test_util/shell.h"

namespace trainpkg::sdk::testing {
namespace {

using ::trainpkg::testing::Sh;
using ::trainpkg::testing::ShellQuote;

constexpr char kSshd[] = "/usr/sbin/sshd";

bool Executable(const char* path) { return ::access(path, X_OK) == 0; }

absl::Status Run(const std::string& command) {
  ::trainpkg::testing::ShellResult result = Sh(command);
  if (result.code != 0) {
    return absl::InternalError(
        absl::StrCat("`", command, "` failed (", result.code, "): ", result.out));
  }
  return absl::OkStatus();
}

bool AcceptsTcp(const std::string& address) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(22);
  ::inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

// The inode of a network namespace (/proc/<pid>/ns/net or /run/netns/NAME).
ino_t NetnsInode(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

}  // namespace

SshHosts::~SshHosts() { Stop(); }

std::string SshHosts::Unavailable() {
  if (::geteuid() != 0) return "not root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)";
  if (!Executable(kSshd)) return "no /usr/sbin/sshd (apt-get install openssh-server)";
  for (const char* tool : {"ip", "nsenter", "ssh", "ssh-keygen", "scp"}) {
    if (Sh(absl::StrCat("command -v ", tool)).code != 0) {
      return absl::StrCat("no ", tool, " (apt-get install iproute2 util-linux openssh-client)");
    }
  }
  // Root in a container may still lack CAP_SYS_ADMIN / CAP_NET_ADMIN.
  const std::string probe = absl::StrCat("tpsshprobe", ::getpid());
  ::trainpkg::testing::ShellResult netns =
      Sh(absl::StrCat("ip netns add ", probe, " && ip netns del ", probe));
  if (netns.code != 0) return absl::StrCat("cannot create a network namespace: ", netns.out);
  return "";
}

absl::Status SshHosts::Start(const SshHostsOptions& options) {
  // Names unique to this process and fixture: pid and a counter (interface
  // names have at most 15 characters).
  static std::atomic<int> counter{0};
  const int id = counter++;
  const std::string tag = absl::StrCat(::getpid() % 100000, "x", id);
  // A /24 in 10.128.0.0/9 that no route of this machine covers yet.
  std::string subnet;
  for (int attempt = 0; attempt < 50 && subnet.empty(); ++attempt) {
    const int seed = (::getpid() * 31 + id * 7 + attempt * 131) % (128 * 256);
    std::string candidate = absl::StrCat("10.", 128 + seed / 256, ".", seed % 256);
    if (Sh(absl::StrCat("ip -4 route show to match ", candidate, ".1 | grep -v '^default'"))
            .out.empty()) {
      subnet = candidate;
    }
  }
  if (subnet.empty()) return absl::InternalError("no free 10.x.y.0/24 subnet for the test hosts");

  bridge_ = absl::StrCat("tpsb", tag);
  if (absl::Status s =
          Run(absl::StrCat("ip link add ", bridge_, " type bridge && ip addr add ", subnet,
                           ".1/24 dev ", bridge_, " && ip link set ", bridge_, " up"));
      !s.ok()) {
    bridge_.clear();
    return s;
  }
  const std::filesystem::path dir = dir_.path();
  if (absl::Status s = Run(absl::StrCat("ssh-keygen -q -t ed25519 -N '' -C trainpkg-test -f ",
                                        ShellQuote((dir / "client_key").string())));
      !s.ok()) {
    return s;
  }
  std::error_code ec;
  std::filesystem::copy_file(dir / "client_key.pub", dir / "authorized_keys", ec);
  if (ec) return absl::InternalError(ec.message());
  std::string known_hosts;
  std::string ssh_config;
  ::mkdir("/run/sshd", 0755);  // sshd's privilege separation directory
  for (int h = 1; h <= options.hosts; ++h) {
    const std::string ns = absl::StrCat("tpssh", tag, "h", h);
    const std::string veth = absl::StrCat("tpv", tag, "h", h);
    const std::string address = absl::StrCat(subnet, ".", h + 1);
    if (absl::Status s = Run(absl::StrCat("ip netns add ", ns)); !s.ok()) return s;
    netns_.push_back(ns);
    addresses_.push_back(address);
    if (absl::Status s = Run(absl::StrCat(
            "ip link add ", veth, " type veth peer name eth0 netns ", ns, " && ip link set ", veth,
            " master ", bridge_, " up && ip -n ", ns, " link set lo up && ip -n ", ns, " addr add ",
            address, "/24 dev eth0 && ip -n ", ns, " link set eth0 up"));
        !s.ok()) {
      return s;
    }
    const std::filesystem::path host_dir = dir / absl::StrCat("host", h);
    std::filesystem::create_directories(host_dir / "home");
    if (absl::Status s = Run(absl::StrCat("ssh-keygen -q -t ed25519 -N '' -f ",
                                          ShellQuote((host_dir / "host_key").string())));
        !s.ok()) {
      return s;
    }
    std::string host_pub = base::ReadFile(host_dir / "host_key.pub").value_or("");
    std::vector<std::string> fields = absl::StrSplit(host_pub, ' ');
    if (fields.size() < 2) return absl::InternalError("unreadable host key " + host_pub);
    absl::StrAppend(&known_hosts, address, " ", fields[0], " ", fields[1], "\n");
    absl::StrAppend(&ssh_config, "Host ", name(h), "\n  HostName ", address, "\n");
    std::ofstream(host_dir / "sshd_config")
        << "Port 22\nListenAddress " << address << "\nHostKey " << (host_dir / "host_key").string()
        << "\nPidFile none\nAuthorizedKeysFile " << (dir / "authorized_keys").string()
        << "\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
           "PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nUseDNS no\n"
           "MaxSessions 100\nMaxStartups 100\nSubsystem sftp internal-sftp\nLogLevel ERROR\n"
        << "SetEnv HOME=" << (host_dir / "home").string() << "\n";
    bool with_sshd = true;
    for (int off : options.without_sshd) with_sshd = with_sshd && off != h;
    if (!with_sshd) continue;
    absl::StatusOr<std::unique_ptr<base::Child>> sshd = base::Spawn(base::SpawnOptions{
        // Only the network namespace: `ip netns exec` would also remount
        // /sys for it, without the cgroup mount that runc needs on a host.
        .argv = {"nsenter", "--net=/run/netns/" + ns, kSshd, "-D", "-e", "-f",
                 (host_dir / "sshd_config").string()},
        .program = "/usr/bin/nsenter",
        .environment = std::nullopt,
        .input = base::SpawnOptions::Input::kDevNull,
        .output = base::SpawnOptions::Output::kAppendToFile,
        .output_file = host_dir / "sshd.log",
    });
    if (!sshd.ok()) return sshd.status();
    sshd_pids_.push_back((*sshd)->pid());
    sshd_.push_back(*std::move(sshd));
  }
  absl::StrAppend(&ssh_config, "Host *\n  User root\n  IdentityFile ",
                  (dir / "client_key").string(), "\n  IdentitiesOnly yes\n  UserKnownHostsFile ",
                  (dir / "known_hosts").string(),
                  "\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n"
                  "  LogLevel ERROR\n");
  std::ofstream(dir / "known_hosts") << known_hosts;
  std::ofstream(dir / "ssh_config") << ssh_config;
  for (int h = 1; h <= options.hosts; ++h) {
    bool with_sshd = true;
    for (int off : options.without_sshd) with_sshd = with_sshd && off != h;
    if (!with_sshd) continue;
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (!AcceptsTcp(address(h))) {
      if (absl::Now() > deadline) {
        return absl::DeadlineExceededError(
            absl::StrCat("sshd of ", name(h), " accepts no connection: ", Logs()));
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
  return absl::OkStatus();
}

void SshHosts::Stop() {
  for (std::unique_ptr<base::Child>& sshd : sshd_) {
    sshd->SignalGroup(SIGTERM);
    (void)sshd->Wait(base::Child::Rest::kKill);
  }
  sshd_.clear();
  sshd_pids_.clear();
  for (const std::string& ns : netns_) {
    // What a test left running in the namespace dies with it.
    for (int pid : ProcessesIn(static_cast<int>(&ns - netns_.data()) + 1)) ::kill(pid, SIGKILL);
    (void)Run(absl::StrCat("ip netns del ", ns));
  }
  netns_.clear();
  if (!bridge_.empty()) (void)Run(absl::StrCat("ip link del ", bridge_));
  bridge_.clear();
}

SshHosts::Result SshHosts::Ssh(int host, const std::string& command) const {
  ::trainpkg::testing::ShellResult result = Sh(absl::StrCat(
      "ssh -F ", ShellQuote(ssh_config().string()), " -o BatchMode=yes -o ConnectTimeout=5 ",
      name(host), " ", ShellQuote(command), " </dev/null"));
  return Result{result.code, result.out};
}

std::vector<int> SshHosts::ProcessesIn(int host) const {
  std::vector<int> pids;
  const ino_t ns_inode = NetnsInode(absl::StrCat("/run/netns/", netns_.at(host - 1)));
  if (ns_inode == 0) return pids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    int pid = std::atoi(name.c_str());
    if (pid <= 0 || std::to_string(pid) != name) continue;
    if (NetnsInode(absl::StrCat("/proc/", pid, "/ns/net")) != ns_inode) continue;
    bool sshd = false;
    for (int sshd_pid : sshd_pids_) sshd = sshd || sshd_pid == pid;
    if (!sshd) pids.push_back(pid);
  }
  return pids;
}

std::string SshHosts::Logs() const {
  std::string logs;
  for (size_t h = 1; h <= netns_.size(); ++h) {
    absl::StrAppend(&logs, "sshd of host", h, ": ",
                    base::ReadFile(dir_.path() / absl::StrCat("host", h) / "sshd.log").value_or(""),
                    "\n");
  }
  return logs;
}

}  // namespace trainpkg::sdk::testing
