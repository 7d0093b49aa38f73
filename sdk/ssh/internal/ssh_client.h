// The system's OpenSSH client, as the SSH backend drives it: one master
// connection per host and job (ControlMaster, its socket in the job
// directory) that every command and replica of the job on that host shares,
// BatchMode (never a password prompt), ConnectTimeout, and the user's
// ssh_config and agent (or SshBackendOptions::ssh_config).
#ifndef TRAINPKG_SDK_SSH_INTERNAL_SSH_CLIENT_H_
#define TRAINPKG_SDK_SSH_INTERNAL_SSH_CLIENT_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/subprocess.h"

namespace trainpkg::sdk::ssh::internal {

struct SshClientConfig {
  std::filesystem::path ssh;     // absolute path of the ssh program
  std::filesystem::path config;  // ssh -F; empty: the user's ~/.ssh/config
  absl::Duration connect_timeout = absl::Seconds(10);
  std::map<std::string, std::string> environment;  // of the master (SSH_AUTH_SOCK, HOME)
};

// The address `host` connects to as ssh_config resolves it (`ssh -G`: its
// HostName), which is what the replicas on other hosts use to reach it.
absl::StatusOr<std::string> ResolveHostAddress(const SshClientConfig& config,
                                               absl::string_view host);

class SshConnection {
 public:
  // Starts the master connection to `host` (on the calling thread, which
  // must outlive it: it dies with that thread), its output appended to
  // `log`. Does not wait for it: AwaitReady(). The control socket's path
  // must be short (sockaddr_un holds 108 bytes, and ssh appends 17 while
  // making it): InvalidArgument otherwise.
  static absl::StatusOr<std::unique_ptr<SshConnection>> Start(const SshClientConfig& config,
                                                              std::string host,
                                                              std::filesystem::path control_path,
                                                              std::filesystem::path log);
  ~SshConnection();  // Close()

  // Blocks until the master is connected and authenticated. Unavailable
  // naming the host and quoting ssh's error when it exits first (the host
  // is unreachable, refuses, or would ask for a password) or does not get
  // there within the connect timeout and 5 s more.
  absl::Status AwaitReady();
  // ssh's argv for running `command` on the host over this connection
  // (argv[0] is the ssh program).
  std::vector<std::string> Argv(absl::string_view command) const;
  // Runs `command` with `input` on its stdin; its output. DeadlineExceeded
  // after `timeout`.
  absl::StatusOr<base::SubprocessResult> Run(absl::string_view command, absl::string_view input,
                                             absl::Duration timeout) const;
  // Asks the master to exit, then ends it. Idempotent.
  void Close();

  const std::string& host() const { return host_; }
  int master_pid() const { return master_->pid(); }

 private:
  SshConnection(SshClientConfig config, std::string host, std::filesystem::path control_path,
                std::filesystem::path log, std::unique_ptr<base::Child> master);
  // The options every invocation shares.
  std::vector<std::string> CommonArgs() const;

  const SshClientConfig config_;
  const std::string host_;
  const std::filesystem::path control_path_;
  const std::filesystem::path log_;
  std::unique_ptr<base::Child> master_;
  bool closed_ = false;
};

}  // namespace trainpkg::sdk::ssh::internal

#endif  // TRAINPKG_SDK_SSH_INTERNAL_SSH_CLIENT_H_
